import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser, type SseMessage } from './sse';

function parse(chunks: string[], lastEventId = ''): { messages: SseMessage[]; retries: number[] } {
	const messages: SseMessage[] = [];
	const retries: number[] = [];
	const parser = new SseParser(
		(m) => messages.push(m),
		(ms) => retries.push(ms),
		lastEventId
	);
	for (const chunk of chunks) parser.push(chunk);
	return { messages, retries };
}

const STREAM =
	': comment\r\nretry: 2500\r\nid: 7\r\nevent: timing\r\ndata: {"a":1,\r\ndata: "b":2}\r\n\r\n' +
	'data: plain\n\nevent: status\rdata: x\r\rid\ndata: after a bare id\n\n';

describe('SseParser', () => {
	it('reads events, multi-line data, the sticky last event id, retry and comments', () => {
		const { messages, retries } = parse([STREAM]);
		expect(retries).toEqual([2500]);
		expect(messages).toEqual([
			{ event: 'timing', data: '{"a":1,\n"b":2}', lastEventId: '7' },
			{ event: 'message', data: 'plain', lastEventId: '7' },
			{ event: 'status', data: 'x', lastEventId: '7' },
			{ event: 'message', data: 'after a bare id', lastEventId: '' }
		]);
	});

	it('starts from the last event id it is given (a reconnection)', () => {
		expect(parse(['data: y\n\n'], '41').messages[0]?.lastEventId).toBe('41');
	});

	it('gives the same messages however the stream is split into reads (CR LF split too)', () => {
		const whole = parse([STREAM]).messages;
		fc.assert(
			fc.property(fc.array(fc.nat(STREAM.length), { maxLength: 12 }), (cuts) => {
				const points = [...new Set(cuts)].sort((a, b) => a - b);
				const chunks: string[] = [];
				let from = 0;
				for (const p of points) {
					chunks.push(STREAM.slice(from, p));
					from = p;
				}
				chunks.push(STREAM.slice(from));
				expect(parse(chunks).messages).toEqual(whole);
			})
		);
	});
});
