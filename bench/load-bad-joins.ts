// A steward's PUT latency while one address sends 1,000 bad join attempts a second (issue 20):
// the service in its own process (`server/main.ts --auth required`, SQLite, as at an event), a
// steward joined with the printed link recording a result every 50 ms from 127.0.0.1, and an
// attacker posting random join tokens from 127.0.0.2, each on a new connection. Three phases in
// one run, each on a new service: the steward alone, with the attack, and with the attack and
// `--failure-limit off` (what the service did before the per-address limit, except that a bad
// token is now refused on a read without the write lock).
//
//   npx tsx bench/load-bad-joins.ts [--seconds=15] [--rate=1000]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './lib/stats.ts';

const arg = (name: string, fallback: string): string =>
	process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

const SECONDS = Number(arg('seconds', '15'));
const RATE = Number(arg('rate', '1000'));
const WRITER_PAUSE_MS = 50;
const ATTACKER = new URL(import.meta.url).pathname;

interface Answer {
	status: number;
	text: string;
	ms: number;
}

function http(
	url: string,
	o: {
		method?: string;
		body?: string;
		headers?: Record<string, string>;
		agent?: Agent | false;
		from?: string;
	}
): Promise<Answer> {
	const t0 = performance.now();
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: o.method ?? 'GET',
				headers: o.headers,
				agent: o.agent ?? false,
				...(o.from ? { localAddress: o.from } : {})
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({
						status: res.statusCode ?? 0,
						text: Buffer.concat(chunks).toString('utf8'),
						ms: performance.now() - t0
					})
				);
			}
		);
		req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
		req.on('error', reject);
		req.end(o.body);
	});
}

async function startService(
	extra: string[]
): Promise<{ url: string; token: string; stop: () => void }> {
	const dir = mkdtempSync(join(tmpdir(), 'ringside-joins-'));
	const child = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			'server/main.ts',
			'--port',
			'0',
			'--db',
			join(dir, 'joins.sqlite'),
			'--seed',
			'realistic',
			'--quiet',
			'--auth',
			'required',
			...extra
		],
		{ stdio: ['ignore', 'pipe', 'inherit'] }
	);
	const found = await new Promise<{ url: string; token: string }>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (b: Buffer) => {
			out += b.toString();
			const url = /running at (http:\/\/\S+)/.exec(out)?.[1];
			const token = /join#t=([A-Za-z0-9_-]+)/.exec(out)?.[1];
			if (url && token) resolve({ url, token });
		});
		child.once('exit', (code) => reject(new Error(`service exited (${code})`)));
	});
	return {
		...found,
		stop: () => {
			child.kill('SIGTERM');
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

interface Phase {
	name: string;
	putMs: number[];
	/** The steward's PUTs not answered 200 (a status or an error, with how many). */
	putErrors: Record<string, number>;
	attack: Record<string, number>;
}

async function phase(name: string, attack: boolean, extra: string[]): Promise<Phase> {
	console.error(`phase: ${name}`);
	const service = await startService(extra);
	const agent = new Agent({ keepAlive: true, maxSockets: 4 });
	try {
		const api = `${service.url}api/v1`;
		const joined = await http(`${api}/devices/join`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ token: service.token, name: 'Steward' })
		});
		const credential = (JSON.parse(joined.text) as { credential: string }).credential;
		const auth = { Authorization: `Bearer ${credential}` };
		const list = JSON.parse(
			(await http(`${api}/competitions?state=IN_PROGRESS`, { headers: auth, agent })).text
		) as {
			_embedded: { competitions: { rings: { _links: { nextDogRuns: { href: string } } }[] }[] };
		};
		const next = list._embedded.competitions[0]!.rings[0]!._links.nextDogRuns.href;
		const dogs = (
			JSON.parse((await http(`${next}?size=50`, { headers: auth, agent })).text) as {
				_embedded: { dogRuns: { _links: { self: { href: string } } }[] };
			}
		)._embedded.dogRuns.map((d) => d._links.self.href);

		const until = Date.now() + SECONDS * 1000;
		const putMs: number[] = [];
		const statuses: Record<string, number> = {};
		const putErrors: Record<string, number> = {};
		const writer = async (): Promise<void> => {
			let n = 0;
			while (Date.now() < until) {
				const t0 = performance.now();
				const a = await http(dogs[n % dogs.length]!, {
					method: 'PUT',
					agent,
					headers: { ...auth, 'Content-Type': 'application/json' },
					body: JSON.stringify({ faults: n++ % 5 })
				}).catch((e: Error) => ({ status: 0, text: e.message, ms: performance.now() - t0 }));
				if (a.status !== 200)
					putErrors[`${a.status} ${a.text.slice(0, 60)}`] =
						(putErrors[`${a.status} ${a.text.slice(0, 60)}`] ?? 0) + 1;
				putMs.push(a.ms);
				await new Promise((r) => setTimeout(r, WRITER_PAUSE_MS));
			}
		};
		// The attacker is a process of its own: its thousand connections a second must not slow
		// the steward's client, only (if at all) the service.
		const attacker = async (): Promise<void> => {
			const child = spawn(
				process.execPath,
				[
					'--import',
					'tsx',
					ATTACKER,
					`--attack=${api}/devices/join`,
					`--seconds=${SECONDS}`,
					`--rate=${RATE}`
				],
				{ stdio: ['ignore', 'pipe', 'inherit'] }
			);
			let out = '';
			child.stdout.on('data', (b: Buffer) => (out += b.toString()));
			await new Promise((r) => child.once('exit', r));
			Object.assign(statuses, JSON.parse(out || '{}') as Record<string, number>);
		};
		await Promise.all([writer(), ...(attack ? [attacker()] : [])]);
		return { name, putMs, attack: statuses, putErrors };
	} finally {
		agent.destroy();
		service.stop();
	}
}

/** Which phases to run (`--phases=alone,limit,off`; an older service has no `--failure-limit`). */
const PHASES = arg('phases', 'alone,limit,off').split(',');

export async function measureBadJoins(): Promise<Phase[]> {
	const out: Phase[] = [];
	if (PHASES.includes('alone')) out.push(await phase('steward alone', false, []));
	if (PHASES.includes('limit')) {
		out.push(await phase(`steward + ${RATE} bad joins/s (service defaults)`, true, []));
	}
	if (PHASES.includes('off')) {
		out.push(
			await phase(`steward + ${RATE} bad joins/s, --failure-limit off`, true, [
				'--failure-limit',
				'off'
			])
		);
	}
	return out;
}

/** The attacker's process: RATE join attempts a second with random tokens, each on a new connection. */
async function attack(url: string): Promise<void> {
	const statuses: Record<string, number> = {};
	const pending: Promise<void>[] = [];
	const until = Date.now() + SECONDS * 1000;
	const start = performance.now();
	for (let i = 0; Date.now() < until; i++) {
		// On schedule: attempt i leaves at i / RATE seconds, whatever the answers do.
		const wait = start + (i * 1000) / RATE - performance.now();
		if (wait > 1) await new Promise((r) => setTimeout(r, wait));
		pending.push(
			http(url, {
				method: 'POST',
				from: '127.0.0.2',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ token: randomBytes(16).toString('base64url') })
			}).then(
				(a) => {
					statuses[a.status] = (statuses[a.status] ?? 0) + 1;
				},
				(e: NodeJS.ErrnoException) => {
					const why = e.code ?? e.message;
					statuses[why] = (statuses[why] ?? 0) + 1;
				}
			)
		);
	}
	await Promise.all(pending);
	process.stdout.write(JSON.stringify(statuses));
}

const attackUrl = arg('attack', '');
if (attackUrl) {
	await attack(attackUrl);
} else if (import.meta.url === `file://${process.argv[1]}`) {
	const phases = await measureBadJoins();
	console.log(
		`${SECONDS} s each, a PUT every ${WRITER_PAUSE_MS} ms; attacker from 127.0.0.2, a new connection each`
	);
	for (const p of phases) {
		const q = (x: number): string => percentile(p.putMs, x).toFixed(1);
		const attack = Object.entries(p.attack)
			.map(([s, n]) => `${s}×${n}`)
			.join(', ');
		console.log(
			`${p.name}: PUT n=${p.putMs.length} (not 200: ${JSON.stringify(p.putErrors)}) p50=${q(0.5)} ms p95=${q(0.95)} ms p99=${q(0.99)} ms max=${Math.max(...p.putMs).toFixed(1)} ms${attack ? `; attack answers ${attack}` : ''}`
		);
	}
}
