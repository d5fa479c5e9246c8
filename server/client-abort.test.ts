// A client that closes its connection in the middle of an upload (a phone that lost the Wi-Fi)
// is logged as what it is: status 0 and "client-closed", no 500, no stack on stderr.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readPutLog } from './app.ts';
import { parseJson, useServices } from './test-support.ts';

const start = useServices();

interface LogLine {
	method: string;
	path: string;
	status: number;
	error?: string;
	traceId?: string;
}

const waitFor = async (done: () => boolean, ms = 3000): Promise<void> => {
	const until = Date.now() + ms;
	while (!done()) {
		if (Date.now() > until) throw new Error('timed out');
		await new Promise((r) => setTimeout(r, 10));
	}
};

describe('a dropped upload', () => {
	it('is logged as closed by the client: status 0, no 500, nothing on stderr', async () => {
		const lines: string[] = [];
		const errors: string[] = [];
		const s = await start({
			quiet: false,
			log: (l) => lines.push(l),
			logError: (l) => errors.push(l)
		});
		const u = new URL(s.svc.url);
		const socket = connect(Number(u.port), '127.0.0.1');
		await new Promise((r) => socket.once('connect', r));
		socket.write(
			`PUT /api/v1/dogRuns/1 HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n` +
				`User-Agent: phone\r\nContent-Length: 100\r\n\r\n{"faults":`
		);
		await new Promise((r) => setTimeout(r, 100));
		socket.destroy();
		await waitFor(() => readPutLog(s.svc.db!).length > 0 && lines.length > 0);
		await new Promise((r) => setTimeout(r, 100));

		expect(errors).toEqual([]);
		const line = parseJson<LogLine>(lines.find((l) => l.includes('/api/v1/dogRuns/1'))!);
		expect(line).toMatchObject({ method: 'PUT', status: 0, error: 'client-closed' });
		expect(line.traceId).toBeUndefined();
		const row = readPutLog(s.svc.db!).at(-1)!;
		expect(row).toMatchObject({
			status: 0,
			resourceKind: 'dogRun',
			resourceId: 1,
			requestBody: null,
			client: 'phone'
		});
		expect(row.responseSummary).toMatch(/client closed the connection/i);
		expect(row.bodyBytes).toBe(Buffer.byteLength('{"faults":'));
		// The service keeps serving.
		expect((await fetch(`${s.entry}`)).status).toBe(200);
	});
});
