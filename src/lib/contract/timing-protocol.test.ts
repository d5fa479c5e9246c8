import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimingEvent } from './timing-events';
import { LineParser, MAX_LINE, parseAll, parseTimeMs } from './timing-protocol';

describe('parseTimeMs', () => {
	it.each([
		['38639', 38639],
		['0', 0],
		['38.63', 38630],
		['38,63', 38630],
		['38.639', 38639],
		['38.6399', 38639],
		['38.6', 38600],
		['1:05.32', 65320],
		['1:05', 65000],
		['12:00,5', 720500]
	])('reads %s as %i ms', (token, ms) => {
		expect(parseTimeMs(token)).toBe(ms);
	});

	it.each(['', '-1', '38.', '.63', '1:60.00', '38.63s', '1e3', '0x10', '38 63', '1234567890123'])(
		'refuses %j',
		(token) => {
			expect(parseTimeMs(token)).toBeUndefined();
		}
	);
});

describe('LineParser', () => {
	it('reads a run in the protocol: elapsed is stop − start, truncated to hundredths', () => {
		expect(parseAll('OK\r\nDOWN 15\r\nSTART 1005\r\nINT 20004\r\nSTOP 39644\r\n')).toEqual([
			{ type: 'ready' },
			{ type: 'countdown', seconds: 15 },
			{ type: 'start', timestamp: 1005 },
			{ type: 'intermediate', elapsed: 1899 },
			// 38639 ms: 3863, truncated; truncating each timestamp first would give 3864.
			{ type: 'stop', elapsed: 3863 }
		]);
	});

	it('counts from zero after a START without a timestamp', () => {
		expect(parseAll('START\nSTOP 38639\n')).toEqual([
			{ type: 'start' },
			{ type: 'stop', elapsed: 3863 }
		]);
	});

	it.each([
		['STOP 38.63', 3863],
		['STOP 38,63', 3863],
		['STOP 38.639', 3863],
		['STOP 38.999', 3899],
		['STOP 38630', 3863],
		['STOP 3863', 386],
		['stop   1:05.329 ', 6532],
		['\tStOp\t0.009', 0]
	])('truncates %j to %i hundredths', (line, elapsed) => {
		expect(parseAll(`START\n${line}\n`)[1]).toEqual({ type: 'stop', elapsed });
	});

	it('accepts LF, CR LF and a lone CR, and skips empty lines', () => {
		const expected: TimingEvent[] = [{ type: 'start' }, { type: 'stop', elapsed: 100 }];
		for (const end of ['\n', '\r\n', '\r']) {
			expect(parseAll(`START${end}${end}STOP 1000${end}`)).toEqual(expected);
		}
	});

	it('keeps a CR LF split across two reads as one line end', () => {
		const parser = new LineParser();
		expect(parser.push('START\r')).toEqual([{ type: 'start' }]);
		expect(parser.push('\nSTOP 1.5\r')).toEqual([{ type: 'stop', elapsed: 150 }]);
		expect(parser.push('\n')).toEqual([]);
	});

	it('joins a line split across reads and waits for its end', () => {
		const parser = new LineParser();
		expect(parser.push('STA')).toEqual([]);
		expect(parser.push('RT 0\nSTOP 38')).toEqual([{ type: 'start', timestamp: 0 }]);
		// "STOP 38" may be the first part of "STOP 38630": nothing until the line ends.
		expect(parser.push('630')).toEqual([]);
		expect(parser.push('\n')).toEqual([{ type: 'stop', elapsed: 3863 }]);
	});

	it('reports a line cut by the end of the stream, never as a time', () => {
		const parser = new LineParser();
		parser.push('START\nSTOP 38');
		expect(parser.end()).toEqual([{ type: 'garbage', line: 'STOP 38', reason: 'cut' }]);
	});

	it('flags a stop without a start and one before the start', () => {
		expect(parseAll('STOP 38639\n')).toEqual([{ type: 'stop', elapsed: 3863, flag: 'no-start' }]);
		expect(parseAll('START 5000\nSTOP 4000\n')[1]).toEqual({ type: 'stop', flag: 'before-start' });
		expect(parseAll('START 5000\nRESET\nSTOP 6000\n')).toEqual([
			{ type: 'start', timestamp: 5000 },
			{ type: 'reset' },
			{ type: 'stop', elapsed: 600, flag: 'no-start' }
		]);
	});

	it('reads a bare STOP as a stop without a time', () => {
		expect(parseAll('START\nSTOP\n')[1]).toEqual({ type: 'stop' });
	});

	it('reads the other commands', () => {
		expect(parseAll('fail\nready\nRESET\nDOWN\nDOWN 0\nWALK\nWALK 300\n')).toEqual([
			{ type: 'fail' },
			{ type: 'ready' },
			{ type: 'reset' },
			{ type: 'countdown', seconds: 15 },
			{ type: 'countdown', seconds: 0 },
			{ type: 'walk', seconds: 420 },
			{ type: 'walk', seconds: 300 }
		]);
	});

	it('ignores the display commands: faults and refusals are recorded by hand', () => {
		expect(parseAll('FAULT +\nREFUSAL 2\nELIM\nMSG 5 hello\nDATA 1:0:0\nTURN +\n')).toEqual([]);
	});

	it.each([
		['HELLO', 'unknown-command'],
		['STOP abc', 'bad-argument'],
		['STOP 38.63 extra', 'bad-argument'],
		['STOP -5', 'bad-argument'],
		['INT', 'bad-argument'],
		['DOWN x', 'bad-argument'],
		['ST\u00d8P 3863', 'noise'],
		['STOP 38\u000163', 'noise'],
		['\ufffd\ufffdSTOP 1000', 'noise']
	])('reports %j as garbage (%s)', (line, reason) => {
		expect(parseAll(`START\n${line}\n`)[1]).toEqual({ type: 'garbage', line, reason });
	});

	it('drops NUL characters, which adapters send when the port opens', () => {
		expect(parseAll('\0\0START\n')).toEqual([{ type: 'start' }]);
	});

	it('bounds an overlong line: one garbage event, then the next line reads', () => {
		const parser = new LineParser();
		const events = [
			...parser.push('X'.repeat(MAX_LINE - 1)),
			...parser.push('Y'.repeat(MAX_LINE * 10)),
			...parser.push('STOP 1000\nSTART\n')
		];
		expect(events).toEqual([
			{ type: 'garbage', line: 'X'.repeat(80), reason: 'overlong' },
			{ type: 'start' }
		]);
	});
});

// Properties ---------------------------------------------------------------------------------

const timeToken = fc.oneof(
	fc.nat({ max: 10_000_000 }).map(String),
	fc
		.tuple(fc.nat({ max: 9999 }), fc.stringMatching(/^\d{1,4}$/), fc.constantFrom('.', ','))
		.map(([s, f, sep]) => `${s}${sep}${f}`)
);
const command = fc.oneof(
	fc.constantFrom('OK', 'READY', 'FAIL', 'RESET', 'START', 'STOP', 'DOWN', 'DOWN 15', 'WALK 0'),
	timeToken.map((t) => `START ${t}`),
	timeToken.map((t) => `INT ${t}`),
	timeToken.map((t) => `STOP ${t}`),
	fc.constantFrom('FAULT +', 'hello', 'STOP x', '')
);
const lineEnd = fc.constantFrom('\n', '\r\n', '\r');
const stream = fc
	.array(fc.tuple(command, lineEnd), { maxLength: 30 })
	.map((lines) => lines.map(([c, e]) => c + e).join(''));

/** Splits `text` at the given (sorted, deduplicated) cut points. */
function split(text: string, cuts: number[]): string[] {
	const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
	const chunks: string[] = [];
	let from = 0;
	for (const p of points) {
		chunks.push(text.slice(from, p));
		from = p;
	}
	chunks.push(text.slice(from));
	return chunks;
}

describe('LineParser properties', () => {
	it('gives the same events however the stream is split into reads', () => {
		fc.assert(
			fc.property(stream, fc.array(fc.nat(), { maxLength: 20 }), (text, cuts) => {
				const whole = parseAll(text);
				const parser = new LineParser();
				const pieces = split(text, cuts).flatMap((chunk) => parser.push(chunk));
				expect([...pieces, ...parser.end()]).toEqual(whole);
			})
		);
	});

	it('never throws on garbage and never makes a stop or intermediate of it', () => {
		// Text with no line that is a time command: random characters, never a word of the protocol.
		const noise = fc
			.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0x3ff })), {
				maxLength: 300
			})
			.map((codes) => String.fromCharCode(...codes))
			.filter((s) => !/stop|int/i.test(s));
		fc.assert(
			fc.property(noise, fc.array(fc.nat(), { maxLength: 10 }), (text, cuts) => {
				const parser = new LineParser();
				const events = [...split(text, cuts).flatMap((c) => parser.push(c)), ...parser.end()];
				for (const e of events) expect(e.type === 'stop' || e.type === 'intermediate').toBe(false);
				for (const e of events)
					if (e.type === 'garbage') expect(e.line.length).toBeLessThanOrEqual(80);
			})
		);
	});

	it('never reads a stop line corrupted by noise as a time', () => {
		const noiseChar = fc.oneof(
			fc.integer({ min: 1, max: 8 }),
			fc.integer({ min: 0x0e, max: 0x1f }),
			fc.integer({ min: 0x7f, max: 0x3ff })
		);
		fc.assert(
			fc.property(timeToken, noiseChar, fc.nat(), (t, code, at) => {
				const line = `STOP ${t}`;
				const i = at % (line.length + 1);
				const corrupted = line.slice(0, i) + String.fromCharCode(code) + line.slice(i);
				expect(parseAll(`START\n${corrupted}\n`)[1]).toMatchObject({
					type: 'garbage',
					reason: 'noise'
				});
			})
		);
	});

	it('never throws, whatever the bytes, and every time is a whole non-negative number', () => {
		const anyText = fc
			.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 400 })
			.map((codes) => String.fromCharCode(...codes));
		const mixed = fc.array(fc.oneof(anyText, stream), { maxLength: 5 }).map((p) => p.join(''));
		fc.assert(
			fc.property(mixed, fc.array(fc.nat(), { maxLength: 10 }), (text, cuts) => {
				const parser = new LineParser();
				const events = [...split(text, cuts).flatMap((c) => parser.push(c)), ...parser.end()];
				for (const e of events) {
					if ((e.type === 'stop' || e.type === 'intermediate') && e.elapsed !== undefined) {
						expect(Number.isSafeInteger(e.elapsed) && e.elapsed >= 0).toBe(true);
					}
				}
			})
		);
	});

	it('truncates any time in seconds to hundredths, never rounds', () => {
		fc.assert(
			fc.property(fc.nat({ max: 9999 }), fc.stringMatching(/^\d{1,6}$/), (s, frac) => {
				const [event] = parseAll(`START\nSTOP ${s}.${frac}\n`).slice(1);
				const hundredths = s * 100 + Number(frac.slice(0, 2).padEnd(2, '0'));
				expect(event).toEqual({ type: 'stop', elapsed: hundredths });
			})
		);
	});

	it('truncates the difference of millisecond timestamps', () => {
		fc.assert(
			fc.property(fc.nat({ max: 1e9 }), fc.nat({ max: 1e7 }), (start, run) => {
				const events = parseAll(`START ${start}\nSTOP ${start + run}\n`);
				expect(events[1]).toEqual({ type: 'stop', elapsed: Math.floor(run / 10) });
			})
		);
	});
});
