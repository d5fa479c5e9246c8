// HTTPS at the venue, against the real service: the event's own CA (what it vouches for, and what
// not), the organiser's certificate (the refusals in words, a renewal taken while running), and
// what answers plain HTTP on the same port (redirects, the trust page and its files).
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type Socket } from 'node:net';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createService, type Service, type ServiceOptions } from '../app.ts';
import { tempDbFile } from '../test-support.ts';
import { ensureLocalTls, LOCAL_RANGES, SERVER_DAYS } from './local-ca.ts';
import { makeCert, openssl } from './test-certs.ts';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'ringside-tls-'));

interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: Buffer;
}

/** One request, over HTTPS trusting `ca` only, or plain HTTP. */
function get(
	url: string,
	opts: { ca?: string; headers?: Record<string, string>; method?: string; body?: string } = {}
): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
		const req = send(
			u,
			{
				method: opts.method ?? 'GET',
				headers: opts.headers ?? {},
				...(opts.ca ? { ca: opts.ca } : {}),
				agent: false
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						headers: res.headers,
						body: Buffer.concat(chunks)
					})
				);
			}
		);
		req.on('error', reject);
		req.end(opts.body);
	});
}

/** GET as JSON over HTTPS trusting `ca`; throws on anything but 200. */
async function json<T>(url: string, ca: string): Promise<T> {
	const a = await get(url, { ca, headers: { Accept: 'application/hal+json' } });
	if (a.status !== 200) throw new Error(`GET ${url}: ${a.status} ${a.body.toString()}`);
	return JSON.parse(a.body.toString()) as T;
}

/**
 * Reads a Server-Sent Events stream over HTTPS until `until` holds for the text read so far;
 * `opened` resolves with its first bytes (the stream is then subscribed).
 */
function readStream(
	url: string,
	ca: string,
	until: (text: string) => boolean
): { opened: Promise<void>; done: Promise<string> } {
	let opened: () => void = () => undefined;
	const first = new Promise<void>((resolve) => (opened = resolve));
	const done = new Promise<string>((resolve, reject) => {
		let text = '';
		const req = httpsRequest(
			new URL(url),
			{ ca, agent: false, headers: { Accept: 'text/event-stream' } },
			(res) => {
				if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
				res.setEncoding('utf8');
				res.on('data', (c: string) => {
					text += c;
					opened();
					if (until(text)) {
						resolve(text);
						req.destroy();
					}
				});
			}
		);
		req.setTimeout(5000, () => req.destroy(new Error(`${url}: not seen within 5 s: ${text}`)));
		req.on('error', reject);
		req.end();
	});
	return { opened: first, done };
}

/** The certificate a TLS client is shown on `port`. */
function servedCertificate(port: number, ca: string): Promise<X509Certificate> {
	return new Promise((resolve, reject) => {
		const s = connect(
			{ host: '127.0.0.1', port, servername: 'localhost', ca, rejectUnauthorized: false },
			() => {
				const raw = s.getPeerX509Certificate();
				s.end();
				if (raw) resolve(raw);
				else reject(new Error('no certificate'));
			}
		);
		s.on('error', reject);
	});
}

function opensslVerify(caFile: string, certFile: string): { ok: boolean; output: string } {
	try {
		return { ok: true, output: openssl(['verify', '-CAfile', caFile, certFile]) };
	} catch (e) {
		const err = e as { stdout?: string; stderr?: string };
		return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
	}
}

const started: Service[] = [];
async function start(extra: ServiceOptions): Promise<Service> {
	const svc = await createService({
		port: 0,
		seed: 'small',
		seedDate: '2026-05-12',
		quiet: true,
		dbFile: tempDbFile(),
		...extra
	});
	started.push(svc);
	return svc;
}
afterEach(async () => {
	while (started.length) await started.pop()!.close();
});

describe("the event's own certificate authority", () => {
	it('vouches for the laptop and local addresses only, and its server certificate lasts at most 397 days', async () => {
		const dir = tempDir();
		const made = await ensureLocalTls(
			dir,
			{ dns: ['ringlaptop', 'ringlaptop.local', 'localhost'], ips: ['127.0.0.1', '192.0.2.2'] },
			'ringlaptop'
		);
		expect(made.madeCa).toBe(true);
		expect(opensslVerify(made.files.ca, made.files.cert).ok).toBe(true);
		const text = openssl(['x509', '-in', made.files.ca, '-noout', '-text']);
		expect(text).toMatch(/Name Constraints: critical/);
		expect(text).toMatch(/CA:TRUE, pathlen:0/);
		expect(text).toMatch(/DNS:ringlaptop\b/);
		expect(text).toMatch(/IP:192\.168\.0\.0\/255\.255\.0\.0/);
		expect(text).toMatch(/IP:192\.0\.2\.2\/255\.255\.255\.255/);
		expect(made.caName).toMatch(/^Ringside event CA ringlaptop /);
		const leaf = new X509Certificate(readFileSync(made.files.cert));
		const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
		expect(days).toBeLessThanOrEqual(SERVER_DAYS);
		expect(leaf.checkIP('192.0.2.2')).toBe('192.0.2.2');
		expect(leaf.checkHost('ringlaptop.local')).toBe('ringlaptop.local');
		expect(LOCAL_RANGES).toContain('10.0.0.0/8');

		// Whoever got the CA's key still could not make phones trust it for another site.
		for (const [name, san] of [
			['bank', 'DNS:bank.example'],
			['public', 'IP:8.8.8.8']
		]) {
			const csrKey = join(dir, `${name}.key`);
			const csr = join(dir, `${name}.csr`);
			const out = join(dir, `${name}.pem`);
			const ext = join(dir, `${name}.ext`);
			writeFileSync(ext, `subjectAltName=${san}\n`);
			openssl([
				'req',
				'-new',
				'-newkey',
				'ec',
				'-pkeyopt',
				'ec_paramgen_curve:P-256',
				'-nodes',
				'-keyout',
				csrKey,
				'-out',
				csr,
				'-subj',
				`/CN=${name}`
			]);
			openssl([
				'x509',
				'-req',
				'-in',
				csr,
				'-CA',
				made.files.ca,
				'-CAkey',
				made.files.caKey,
				'-out',
				out,
				'-days',
				'30',
				'-extfile',
				ext
			]);
			const verdict = opensslVerify(made.files.ca, out);
			expect(verdict.ok, verdict.output).toBe(false);
			expect(verdict.output).toMatch(/permitted subtree violation/);
		}
	});

	it('keeps the CA, and issues a new server certificate when the addresses change', async () => {
		const dir = tempDir();
		const names = { dns: ['ringlaptop', 'localhost'], ips: ['127.0.0.1', '192.168.8.10'] };
		const first = await ensureLocalTls(dir, names, 'ringlaptop');
		const again = await ensureLocalTls(dir, names, 'ringlaptop');
		expect(again.madeCa).toBe(false);
		expect(again.issued).toBe(false);
		expect(again.certPem).toBe(first.certPem);
		const moved = await ensureLocalTls(
			dir,
			{ ...names, ips: ['127.0.0.1', '10.1.2.3'] },
			'ringlaptop'
		);
		expect(moved.madeCa).toBe(false);
		expect(moved.issued).toBe(true);
		expect(moved.caFingerprint).toBe(first.caFingerprint);
		expect(new X509Certificate(moved.certPem).checkIP('10.1.2.3')).toBe('10.1.2.3');
		expect(opensslVerify(moved.files.ca, moved.files.cert).ok).toBe(true);
	});
});

describe('the service with --tls local', () => {
	it('answers HTTPS with links on https, and plain HTTP on the same port with redirects and the trust page', async () => {
		const tlsDir = tempDir();
		const svc = await start({ tls: 'local', tlsDir });
		expect(svc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
		const ca = readFileSync(join(tlsDir, 'ringside-ca.pem'), 'utf8');
		const base = `https://127.0.0.1:${svc.port}`;
		const plain = `http://127.0.0.1:${svc.port}`;

		const entry = await get(`${base}/api/v1/competitions`, { ca });
		expect(entry.status).toBe(200);
		const list = JSON.parse(entry.body.toString()) as { _links: { self: { href: string } } };
		expect(list._links.self.href.startsWith(`${base}/api/v1/competitions`)).toBe(true);

		// A page opened over plain HTTP goes by the trust page; anything else straight to HTTPS.
		const page = await get(`${plain}/runs/3?x=1`, { headers: { 'Sec-Fetch-Mode': 'navigate' } });
		expect(page.status).toBe(307);
		expect(page.headers.location).toBe('/trust?next=%2Fruns%2F3%3Fx%3D1');
		const api = await get(`${plain}/api/v1/competitions`);
		expect(api.status).toBe(307);
		expect(api.headers.location).toBe(`${base}/api/v1/competitions`);

		const trust = await get(`${plain}/trust?next=/runs/3`);
		expect(trust.status).toBe(200);
		expect(trust.headers['content-security-policy']).toMatch(/script-src 'self'/);
		const html = trust.body.toString();
		expect(html).toContain(`data-secure="${base}"`);
		expect(html).toContain('data-next="/runs/3"');
		expect(html).toContain(svc.tls?.ca?.fingerprint ?? 'missing');
		// An address of another site is never where the page leads.
		const elsewhere = await get(`${plain}/trust?next=//evil.example/x`);
		expect(elsewhere.body.toString()).toContain('data-next="/"');

		const der = await get(`${plain}/trust/ringside-event-ca.crt`);
		expect(der.headers['content-type']).toBe('application/x-x509-ca-cert');
		expect(new X509Certificate(der.body).fingerprint256).toBe(svc.tls?.ca?.fingerprint);
		const profile = await get(`${plain}/trust/ringside-event.mobileconfig`);
		expect(profile.headers['content-type']).toBe('application/x-apple-aspen-config');
		expect(profile.body.toString()).toContain(der.body.toString('base64'));
		expect(profile.body.toString()).toContain('<string>com.apple.security.root</string>');

		const info = JSON.parse((await get(`${plain}/trust/info.json`)).body.toString()) as unknown;
		expect(info).toEqual({ secureOrigin: base, trustPage: `${plain}/trust` });
		expect((await get(`${base}/trust/ok`, { ca })).status).toBe(204);
		expect((await get(`${plain}/trust/ok`)).status).toBe(404);
		// DNS rebinding: a name the service does not serve gets nothing, over either.
		expect(
			(await get(`${plain}/trust`, { headers: { Host: `evil.example:${svc.port}` } })).status
		).toBe(400);
	});

	it('relays the push stream over HTTPS', async () => {
		const tlsDir = tempDir();
		const svc = await start({ tls: 'local', tlsDir });
		const ca = readFileSync(join(tlsDir, 'ringside-ca.pem'), 'utf8');
		const base = `https://127.0.0.1:${svc.port}`;
		const list = JSON.parse((await get(`${base}/api/v1/competitions`, { ca })).body.toString()) as {
			_embedded: { competitions: { _links: { changes?: { href: string } } }[] };
		};
		const changes = list._embedded.competitions[0]?._links.changes?.href;
		expect(changes).toMatch(/^https:/);
		const first = await new Promise<string>((resolve, reject) => {
			const req = httpsRequest(
				new URL(changes!),
				{ ca, agent: false, headers: { Accept: 'text/event-stream' } },
				(res) => {
					res.once('data', (c: Buffer) => {
						resolve(`${res.statusCode} ${res.headers['content-type']} ${c.toString()}`);
						req.destroy();
					});
				}
			);
			req.on('error', reject);
			req.end();
		});
		expect(first).toMatch(/^200 text\/event-stream/);
	});

	it('relays the timing gates over HTTPS: the ring links its timer stream on https, and a stop comes through', async () => {
		const chronometer = createServer((socket) => {
			socket.on('error', () => undefined);
			gates.push(socket);
		});
		const gates: Socket[] = [];
		await new Promise<void>((resolve) => chronometer.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = chronometer.address() as { port: number };
			const tlsDir = tempDir();
			const svc = await start({
				tls: 'local',
				tlsDir,
				timer: `tcp:127.0.0.1:${port}`,
				timerOptions: { reconnectMinMs: 20, reconnectMaxMs: 100, connectTimeoutMs: 1000 }
			});
			const ca = readFileSync(join(tlsDir, 'ringside-ca.pem'), 'utf8');
			const list = await json<{
				_embedded: {
					competitions: { rings: { _links: { timer?: { href: string } } }[] }[];
				};
			}>(`https://127.0.0.1:${svc.port}/api/v1/competitions`, ca);
			const href = list._embedded.competitions.flatMap((c) => c.rings).find((r) => r._links.timer)
				?._links.timer?.href;
			expect(href).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
			await expect.poll(() => svc.timerStatus()[0]?.connected).toBe(true);
			const read = readStream(href!, ca, (text) => text.includes('"type":"stop"'));
			// The stream is open once its first event (the timer's status) came; then a run.
			await read.opened;
			for (const g of gates) g.write('OK\r\nSTART 100000\r\nSTOP 138637\r\n');
			const text = await read.done;
			expect(text).toMatch(/"type":"stop"[^\n]*"elapsed":3863/);
		} finally {
			for (const g of gates) g.destroy();
			await new Promise((r) => chronometer.close(r));
		}
	});

	it('mirrors over it: a phone’s change sent over HTTPS to the laptop reaches the upstream', async () => {
		const upstream = await start({ etag: true });
		const tlsDir = tempDir();
		const laptop = await start({
			tls: 'local',
			tlsDir,
			mirror: upstream.url,
			mirrorCompetitions: [1],
			mirrorPullMs: 100
		});
		const ca = readFileSync(join(tlsDir, 'ringside-ca.pem'), 'utf8');
		const base = `https://127.0.0.1:${laptop.port}`;
		const runs = await json<{
			_embedded: { competitionRuns: { _links: { dogRuns: { href: string } } }[] };
		}>(`${base}/api/v1/competitions/1/runs`, ca);
		const dogRunsHref = runs._embedded.competitionRuns[0]!._links.dogRuns.href;
		expect(dogRunsHref.startsWith(`${base}/`)).toBe(true);
		const dogRuns = await json<{
			_embedded: { dogRuns: { id: number; _links: { self: { href: string } } }[] };
		}>(dogRunsHref, ca);
		const dog = dogRuns._embedded.dogRuns[0]!;
		const put = await get(dog._links.self.href, {
			ca,
			method: 'PUT',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ time: 41.37, faults: 5 })
		});
		expect(put.status).toBe(200);
		await expect
			.poll(
				async () => {
					const r = await get(`${upstream.url}api/v1/dogRuns/${dog.id}`);
					const d = JSON.parse(r.body.toString()) as { time: number; faults: number };
					return [d.time, d.faults];
				},
				{ timeout: 5000 }
			)
			.toEqual([41.37, 5]);
	});

	it('answers plain HTTP on --http-port too', async () => {
		const svc = await start({ tls: 'local', tlsDir: tempDir(), httpPort: 0 });
		expect(svc.httpPort).toBeGreaterThan(0);
		const r = await get(`http://127.0.0.1:${svc.httpPort}/api/v1/competitions`);
		expect(r.status).toBe(307);
		expect(r.headers.location).toBe(`https://127.0.0.1:${svc.port}/api/v1/competitions`);
		const info = JSON.parse(
			(await get(`http://127.0.0.1:${svc.httpPort}/trust/info.json`)).body.toString()
		) as { trustPage: string };
		expect(info.trustPage).toBe(`http://127.0.0.1:${svc.httpPort}/trust`);
	});

	it('answers /trust with 404 when it serves no HTTPS', async () => {
		const svc = await start({});
		const r = await get(`http://127.0.0.1:${svc.port}/trust/info.json`);
		expect(r.status).toBe(404);
	});
});

describe("the organiser's own certificate", () => {
	it('refuses, in words, a certificate for a name the service does not answer on', async () => {
		const dir = tempDir();
		const c = makeCert(dir, ['ring.club.example'], 30);
		await expect(start({ tlsCert: c.cert, tlsKey: c.key })).rejects.toThrow(
			/for ring\.club\.example.*--allow-host ring\.club\.example/
		);
		const svc = await start({ tlsCert: c.cert, tlsKey: c.key, allowHosts: ['ring.club.example'] });
		expect(svc.tls?.covered).toEqual(['ring.club.example']);
	});

	it('refuses one that expires before the event ends, and a key that is not its own', async () => {
		const dir = tempDir();
		const short = makeCert(dir, ['localhost'], 2, 'short');
		const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
		await expect(start({ tlsCert: short.cert, tlsKey: short.key, seedDate: soon })).rejects.toThrow(
			/expires on .* before the event ends/
		);
		const other = makeCert(dir, ['localhost'], 30, 'other');
		await expect(start({ tlsCert: short.cert, tlsKey: other.key })).rejects.toThrow(
			/is not the key of the certificate/
		);
		await expect(start({ tlsCert: join(dir, 'missing.pem'), tlsKey: other.key })).rejects.toThrow(
			/Cannot read the certificate file .*no such file/
		);
	});

	it('takes a renewed certificate while running', async () => {
		const dir = tempDir();
		const first = makeCert(dir, ['localhost', '127.0.0.1'], 30, 'first');
		const svc = await start({ tlsCert: first.cert, tlsKey: first.key });
		const before = await servedCertificate(svc.port, readFileSync(first.cert, 'utf8'));
		const renewed = makeCert(dir, ['localhost', '127.0.0.1'], 60, 'renewed');
		// As certbot renews: the same paths, new contents.
		writeFileSync(first.key, readFileSync(renewed.key));
		writeFileSync(first.cert, readFileSync(renewed.cert));
		const deadline = Date.now() + 10_000;
		let after = before;
		while (Date.now() < deadline && after.serialNumber === before.serialNumber) {
			await new Promise((r) => setTimeout(r, 250));
			after = await servedCertificate(svc.port, readFileSync(renewed.cert, 'utf8'));
		}
		expect(after.serialNumber).not.toBe(before.serialNumber);
		expect(after.fingerprint256).toBe(
			new X509Certificate(readFileSync(renewed.cert)).fingerprint256
		);
	});
});
