// Hardening: body limit without buffering, no internals in error messages, parameterised SQL
// only (and only in server/store), and no request text reflected as markup.
import { readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, readPutLog } from './app.ts';
import {
	call,
	parseJson,
	put,
	useServices,
	type CompetitionList,
	type DogRunJson,
	type DogRunList,
	type ErrorJson,
	type RunList,
	type Started
} from './test-support.ts';

const start = useServices();

async function aDogRun(s: Started): Promise<DogRunJson> {
	const list = await call<CompetitionList>(`${s.entry}?state=IN_PROGRESS`);
	const runs = await call<RunList>(
		list.body._embedded!.competitions[0]!._links.competitionRuns.href
	);
	const dogs = await call<DogRunList>(runs.body._embedded!.competitionRuns[0]!._links.dogRuns.href);
	return dogs.body._embedded!.dogRuns[0]!;
}

interface RawConnection {
	socket: Socket;
	/** Everything the server sent so far. */
	received: () => string;
	/** Resolves when the server closed the connection (or it failed). */
	closed: Promise<void>;
}

function rawConnect(port: number): Promise<RawConnection> {
	return new Promise((resolve, reject) => {
		const socket = connect(port, '127.0.0.1');
		let text = '';
		socket.on('data', (b: Buffer) => {
			text += b.toString('latin1');
		});
		const closed = new Promise<void>((done) => {
			socket.on('close', () => done());
			socket.on('error', () => done());
		});
		socket.once('connect', () => resolve({ socket, received: () => text, closed }));
		socket.once('error', reject);
	});
}

/** One raw request on its own connection; resolves with the whole answer once it is closed. */
async function rawRequest(port: number, head: string): Promise<string> {
	const c = await rawConnect(port);
	c.socket.end(`${head}\r\nConnection: close\r\n\r\n`);
	await c.closed;
	return c.received();
}

function splitAnswer(raw: string): { status: number; headers: string; body: string } {
	const at = raw.indexOf('\r\n\r\n');
	const headers = raw.slice(0, at).toLowerCase();
	return {
		status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0),
		headers,
		body: Buffer.from(raw.slice(at + 4), 'latin1').toString('utf8')
	};
}

const timeout = (ms: number): Promise<'timeout'> =>
	new Promise((r) => setTimeout(() => r('timeout'), ms));

describe('request body limit', () => {
	it('answers 413 at once for a declared oversize body, without reading the rest', async () => {
		const s = await start();
		const d = await aDogRun(s);
		const c = await rawConnect(s.svc.port);
		const declared = 50 * 1024 * 1024;
		c.socket.write(
			`PUT /api/v1/dogRuns/${d.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
				`Content-Length: ${declared}\r\n\r\n`
		);
		c.socket.write(Buffer.alloc(100 * 1024, 0x20));
		// The server answers and closes although 49.9 MiB of the declared body never arrive.
		expect(await Promise.race([c.closed.then(() => 'closed' as const), timeout(3000)])).toBe(
			'closed'
		);
		const a = splitAnswer(c.received());
		expect(a.status).toBe(413);
		expect(a.headers).toContain('connection: close');
		expect(a.headers).toContain('content-type: application/hal+json');
		expect(parseJson<ErrorJson>(a.body)).toMatchObject({ status: 413, error: 'Payload Too Large' });
		expect(readPutLog(s.svc.db!).at(-1)).toMatchObject({ status: 413, requestBody: null });
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
	});

	it('drops an upload that does not arrive within requestTimeoutMs; nothing is applied', async () => {
		const s = await start({ requestTimeoutMs: 400 });
		const d = await aDogRun(s);
		const c = await rawConnect(s.svc.port);
		const body = '{"faults":15}';
		c.socket.write(
			`PUT /api/v1/dogRuns/${d.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
				`Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`
		);
		// The rest never comes: the connection is closed (Node's default waits 300 s).
		expect(await Promise.race([c.closed.then(() => 'closed' as const), timeout(5000)])).toBe(
			'closed'
		);
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
		expect(readPutLog(s.svc.db!).at(-1)).toMatchObject({ status: 0, resourceId: d.id });
	});

	it('stops reading an endless chunked upload soon after the limit', async () => {
		const s = await start();
		const d = await aDogRun(s);
		const c = await rawConnect(s.svc.port);
		let closed = false;
		void c.closed.then(() => (closed = true));
		c.socket.write(
			`PUT /api/v1/dogRuns/${d.id} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
				`Transfer-Encoding: chunked\r\n\r\n`
		);
		const chunk = Buffer.alloc(64 * 1024, 0x20);
		const frame = Buffer.concat([
			Buffer.from(`${chunk.length.toString(16)}\r\n`),
			chunk,
			Buffer.from('\r\n')
		]);
		let written = 0;
		const cap = 256 * 1024 * 1024;
		while (!closed && written < cap) {
			const flushed = c.socket.write(frame);
			written += frame.length;
			if (!flushed) {
				await Promise.race([
					new Promise((r) => c.socket.once('drain', r)),
					c.closed,
					timeout(2000)
				]);
			}
		}
		await Promise.race([c.closed, timeout(3000)]);
		expect(closed).toBe(true);
		// Only socket buffers' worth was accepted, never the endless body.
		expect(written).toBeLessThan(64 * 1024 * 1024);
		expect(splitAnswer(c.received()).status).toBe(413);
		expect((await call<DogRunJson>(d._links.self.href)).body).toEqual(d);
	});

	it('accepts a body of exactly the limit (then judges its content)', async () => {
		const s = await start();
		const d = await aDogRun(s);
		const text = JSON.stringify({ faults: 4 });
		const padded = text + ' '.repeat(MAX_BODY_BYTES - text.length);
		expect((await put(d._links.self.href, padded)).status).toBe(200);
		expect((await put(d._links.self.href, `${padded} `)).status).toBe(413);
		// The keep-alive connection survives a 413: the next request on the same agent works.
		expect((await call<DogRunJson>(d._links.self.href)).body.faults).toBe(4);
	});
});

describe('internal errors', () => {
	const STACK_OR_SQL =
		/\n\s+at |SELECT|INSERT|UPDATE dog|FROM |dog_run|SqliteError|SQLITE_|\.ts:\d/;

	it('answers a generic 500 when the database is closed under a request, logging the stack', async () => {
		const errors: string[] = [];
		const s = await start({ latencyMs: 150, logError: (l) => errors.push(l) });
		const d = await aDogRun(s);
		const pendingGet = call<ErrorJson>(d._links.self.href);
		const pendingPut = put<ErrorJson>(d._links.self.href, { faults: 3 });
		await new Promise((r) => setTimeout(r, 50));
		s.svc.db!.close();
		for (const a of [await pendingGet, await pendingPut]) {
			expect(a.status).toBe(500);
			expect(a.res.headers.get('content-type')).toBe('application/hal+json');
			expect(a.body).toMatchObject({ status: 500, error: 'Internal Server Error' });
			expect(a.body.message).toBe('Internal server error; see the service log');
			const logged = errors.find((l) => l.includes(a.body.traceId));
			expect(logged).toBeDefined();
			const entry = parseJson<{ traceId: string; error: string; level: string }>(logged!);
			expect(entry.level).toBe('error');
			expect(entry.error).toMatch(/\n\s+at /);
		}
	});

	it('keeps SQL text out of the answer when a statement fails', async () => {
		const errors: string[] = [];
		const s = await start({ logError: (l) => errors.push(l) });
		const d = await aDogRun(s);
		s.svc.db!.exec('ALTER TABLE dog_run RENAME TO dog_run_gone');
		const a = await put<ErrorJson>(d._links.self.href, { faults: 3 });
		expect(a.status).toBe(500);
		expect(a.text).not.toMatch(STACK_OR_SQL);
		expect(errors.join('\n')).toContain(a.body.traceId);
		expect(errors.join('\n')).toMatch(/no such table/);
		const b = await call<ErrorJson>(d._links.self.href);
		expect(b.status).toBe(500);
		expect(b.text).not.toMatch(STACK_OR_SQL);
	});

	it('treats SQL-like input as data', async () => {
		const s = await start();
		const all = await call<CompetitionList>(s.entry);
		for (const state of ["' OR '1'='1", 'NEW; DROP TABLE competition; --', 'NEW" OR 1=1 --']) {
			const a = await call<CompetitionList>(`${s.entry}?state=${encodeURIComponent(state)}`);
			expect(a.status).toBe(200);
			expect(a.body.page.totalElements).toBe(0);
		}
		for (const bad of ['1 OR 1=1', "1'--", '1;DROP TABLE dog_run']) {
			const a = await call<ErrorJson>(`${s.svc.url}api/v1/dogRuns/${encodeURIComponent(bad)}`);
			expect(a.status).toBe(400);
		}
		expect((await call<CompetitionList>(s.entry)).body).toEqual(all.body);
	});
});

describe('SQL is parameterised only', () => {
	/** The service's own sources (its root and every room), without its tests and their helpers. */
	const serviceSources = (): string[] =>
		readdirSync('server', { recursive: true, encoding: 'utf8' }).filter(
			(name) =>
				name.endsWith('.ts') &&
				!name.endsWith('.test.ts') &&
				!/(^|\/)test-[\w-]+(\.ts|\/)/.test(name) &&
				!name.includes('test-support')
		);

	/** Module-level string constants that may be spliced into SQL: fixed SQL fragments only. */
	function constantFragments(file: ts.SourceFile): Set<string> {
		const names = new Set<string>();
		for (const st of file.statements) {
			if (!ts.isVariableStatement(st)) continue;
			if (!(st.declarationList.flags & ts.NodeFlags.Const)) continue;
			for (const decl of st.declarationList.declarations) {
				const init = decl.initializer;
				if (
					ts.isIdentifier(decl.name) &&
					init &&
					(ts.isStringLiteral(init) ||
						ts.isNoSubstitutionTemplateLiteral(init) ||
						ts.isTemplateExpression(init))
				) {
					names.add(decl.name.text);
				}
			}
		}
		return names;
	}

	it('splices only constant SQL fragments into statements, never request data', () => {
		const SQL = /\b(SELECT|INSERT|UPDATE|DELETE|WHERE|PRAGMA|VALUES)\b|user_version/;
		const problems: string[] = [];
		let statements = 0;
		// Every room of the service, not only its root (the queries live in store/).
		for (const name of serviceSources()) {
			const text = readFileSync(join('server', name), 'utf8');
			const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
			const constants = constantFragments(file);
			const visit = (node: ts.Node): void => {
				if (ts.isTemplateExpression(node) && SQL.test(node.getText())) {
					statements++;
					for (const span of node.templateSpans) {
						const e = span.expression;
						const ok =
							(ts.isIdentifier(e) && constants.has(e.text) && /^[A-Z_]+$/.test(e.text)) ||
							// the migration counter in PRAGMA user_version (a number, not input)
							e.getText() === 'v + 1';
						if (!ok) problems.push(`${name}: \${${e.getText()}} in ${node.getText().slice(0, 60)}`);
					}
				}
				if (
					ts.isBinaryExpression(node) &&
					node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
					[node.left, node.right].some(
						(side) =>
							(ts.isStringLiteral(side) || ts.isNoSubstitutionTemplateLiteral(side)) &&
							SQL.test(side.text)
					)
				) {
					problems.push(`${name}: SQL built with + near ${node.getText().slice(0, 60)}`);
				}
				ts.forEachChild(node, visit);
			};
			visit(file);
		}
		expect(problems).toEqual([]);
		expect(statements).toBeGreaterThan(5);
	});

	it('keeps every statement in server/store: the other rooms call them by name', () => {
		const STATEMENT =
			/\b(SELECT\b[\s\S]*\bFROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM|(CREATE|DROP|ALTER) (TABLE|INDEX|DATABASE)|ON CONFLICT|RETURNING|PRAGMA)\b/;
		const outside: string[] = [];
		let inStore = 0;
		for (const name of serviceSources()) {
			const text = readFileSync(join('server', name), 'utf8');
			const file = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
			const visit = (node: ts.Node): void => {
				if (
					(ts.isStringLiteral(node) ||
						ts.isNoSubstitutionTemplateLiteral(node) ||
						ts.isTemplateExpression(node)) &&
					STATEMENT.test(node.getText())
				) {
					if (name.startsWith('store/')) inStore++;
					else outside.push(`${name}: ${node.getText().slice(0, 60)}`);
					return;
				}
				ts.forEachChild(node, visit);
			};
			visit(file);
		}
		expect(outside).toEqual([]);
		expect(inStore).toBeGreaterThan(50);
	});
});

describe('no request text reflected as markup', () => {
	const noMarkup = (text: string): void => {
		expect(text).not.toMatch(/[<>]/);
	};

	it('answers JSON with escaped < and > wherever request text is echoed', async () => {
		const s = await start({ appDir: undefined });
		const d = await aDogRun(s);
		// A raw path with markup in it (a browser would percent-encode it; a raw client need not).
		const raw = splitAnswer(
			await rawRequest(
				s.svc.port,
				'GET /api/v1/<script>alert(1)</script> HTTP/1.1\r\nHost: 127.0.0.1'
			)
		);
		expect([400, 404]).toContain(raw.status);
		if (raw.status === 404) {
			expect(raw.headers).toContain('content-type: application/hal+json');
			expect(raw.headers).toContain('x-content-type-options: nosniff');
			noMarkup(raw.body);
			expect(parseJson<ErrorJson>(raw.body).path).toBe('/api/v1/<script>alert(1)</script>');
		}
		const q = await call<ErrorJson>(`${s.entry}?dateFrom=${encodeURIComponent('<img src=x>')}`);
		expect(q.status).toBe(400);
		noMarkup(q.text);
		expect(q.body.message).toContain('<img src=x>');
		const ct = await call<ErrorJson>(d._links.self.href, {
			method: 'PUT',
			headers: { 'Content-Type': 'text/html; x=<b>' },
			body: '{"faults":1}'
		});
		expect(ct.status).toBe(415);
		noMarkup(ct.text);
		const bad = await put<ErrorJson>(d._links.self.href, '{"<b>":1}');
		expect(bad.status).toBe(400);
		noMarkup(bad.text);
		expect(bad.body.message).toContain("'<b>'");
		// A forwarded host that is no address of the service is refused, the name echoed as data.
		const host = await call<ErrorJson>(s.entry, {
			headers: { 'X-Forwarded-Host': 'evil.test/<svg onload=x>' }
		});
		expect(host.status).toBe(400);
		expect(host.res.headers.get('content-type')).toBe('application/hal+json');
		noMarkup(host.text);
		expect(host.body.message).toContain('<svg onload=x>');
	});
});
