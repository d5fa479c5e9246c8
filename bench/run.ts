/**
 * `npm run bench` (issue 5): every figure in headless Chromium against the embedded service,
 * started in-process with latency added on the service side. See bench/README.md.
 *
 *   tsx bench/run.ts [--smoke] [--build] [--only=replay,download,capture,start,scale,lighthouse,live,timing,pg,scale-out,outage,mirror,https]
 *
 * Parts 10 (scale-out: 10,000 spectators on two instances behind nginx) and 11 (outage: Chromium,
 * WebKit and Firefox through service outages) take long: a full run leaves them out (`--only=…`
 * runs them, into bench/results/<part>.*); the smoke run includes them, small.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { localToday } from '../server/seed/dates.ts';
import { benchLib, bundleBenchPage } from './lib/bundle.ts';
import { CHROMIUM_PATH, launch } from './lib/browser.ts';
import { markdown, textTable, writeReport, type Report } from './lib/report.ts';
import { ServiceFactory } from './lib/service.ts';
import type { BenchContext } from './parts/context.ts';
import { benchCapture } from './parts/capture.ts';
import { benchDownload } from './parts/download.ts';
import { benchHttps } from './parts/https.ts';
import { benchLighthouse } from './parts/lighthouse.ts';
import { benchLive } from './parts/live.ts';
import { benchMirror } from './parts/mirror.ts';
import { benchOutage } from './parts/outage.ts';
import { benchPg } from './parts/pg.ts';
import { benchReplay } from './parts/replay.ts';
import { benchScale } from './parts/scale.ts';
import { benchScaleOut } from './parts/scale-out.ts';
import { benchStart } from './parts/start.ts';
import { benchTiming } from './parts/timing.ts';

const ROOT = resolve(import.meta.dirname, '..');
const PARTS = {
	replay: benchReplay,
	download: benchDownload,
	capture: benchCapture,
	start: benchStart,
	scale: benchScale,
	lighthouse: benchLighthouse,
	live: benchLive,
	timing: benchTiming,
	pg: benchPg,
	'scale-out': benchScaleOut,
	outage: benchOutage,
	mirror: benchMirror,
	https: benchHttps
} as const;
type PartName = keyof typeof PARTS;
/** Parts with Node clients only: no build, bench page or browser needed for them. */
const NODE_ONLY: readonly PartName[] = ['live', 'pg', 'scale-out', 'mirror'];
/** Parts that run the app's src/lib in the bench page only: no production build needed. */
const PAGE_ONLY: readonly PartName[] = ['replay', 'download', 'https'];
/** Parts that launch their own engines (tests/engines drivers): the build, but no shared browser. */
const OWN_ENGINES: readonly PartName[] = ['outage'];
/** Parts a full run without --only leaves out (long; their own results file). */
const ONLY_ON_REQUEST: readonly PartName[] = ['scale-out', 'outage', 'mirror', 'https'];
/** Parts whose full runs are kept in bench/results/<part>.{json,md}, not in latest.*. */
const OWN_RESULTS: readonly PartName[] = ['scale-out', 'outage', 'mirror', 'https'];

interface Args {
	smoke: boolean;
	build: boolean;
	only: PartName[];
	/** No --only: every part (a full run leaves ONLY_ON_REQUEST out). */
	all: boolean;
	reps: number | null;
	/** Replace these parts' rows in latest.json instead of writing partial.*.tmp. */
	merge: boolean;
}

function parseArgs(argv: string[]): Args {
	const smoke = argv.includes('--smoke');
	const repsArg = argv.find((a) => a.startsWith('--reps='));
	const reps = repsArg ? Number(repsArg.slice('--reps='.length)) : null;
	if (reps !== null && !(Number.isInteger(reps) && reps > 0)) throw new Error('--reps=N, N ≥ 1');
	const build = argv.includes('--build');
	const onlyArg = argv.find((a) => a.startsWith('--only='));
	const names = Object.keys(PARTS) as PartName[];
	const only = onlyArg
		? onlyArg
				.slice('--only='.length)
				.split(',')
				.map((s) => s.trim())
				.filter((s): s is PartName => {
					if ((names as string[]).includes(s)) return true;
					throw new Error(`unknown part '${s}' (known: ${names.join(', ')})`);
				})
		: names.filter((n) => smoke || !ONLY_ON_REQUEST.includes(n));
	return { smoke, build, only, all: !onlyArg, reps, merge: argv.includes('--merge') };
}

function chromiumVersion(): string {
	try {
		return execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8' }).trim();
	} catch {
		return 'unknown';
	}
}

function gitRevision(): string {
	try {
		const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
			cwd: ROOT,
			encoding: 'utf8'
		});
		const dirty = execFileSync('git', ['status', '--porcelain', 'src', 'server'], {
			cwd: ROOT,
			encoding: 'utf8'
		});
		return rev.trim() + (dirty.trim() ? ' + uncommitted src/server changes' : '');
	} catch {
		return 'unknown';
	}
}

/** `vite build`, tried again when another build in the same checkout got in its way. */
function buildApp(log: (message: string) => void): void {
	for (let attempt = 1; ; attempt++) {
		log(`building the app (vite build)${attempt > 1 ? `, attempt ${attempt}` : ''}`);
		try {
			execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
			return;
		} catch (e) {
			if (attempt >= 3) throw e;
			execFileSync('sleep', ['5']);
		}
	}
}

/** latest.json with the rows of the parts just measured replaced by this run's. */
function mergeInto(file: string, report: Report, parts: PartName[]): Report {
	const previous = JSON.parse(readFileSync(file, 'utf8')) as Report;
	const order = Object.keys(PARTS);
	const partOf = (label: string): string => order[Number(label.split(' ')[0]) - 1] ?? label;
	const measured = new Set<string>(parts);
	const rows = [...previous.rows.filter((r) => !measured.has(partOf(r.part))), ...report.rows].sort(
		(a, b) => a.part.localeCompare(b.part, 'en', { numeric: true })
	);
	return {
		...previous,
		environment: {
			...previous.environment,
			[`re-measured ${parts.join(', ')}`]: report.startedAt
		},
		rows,
		skipped: [...previous.skipped.filter((s) => !measured.has(s.part)), ...report.skipped]
	};
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const started = Date.now();
	const log = (message: string): void => {
		console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}`);
	};
	const buildDir = join(ROOT, 'build');
	const needsBuild = args.only.some((p) => !NODE_ONLY.includes(p) && !PAGE_ONLY.includes(p));
	const needsBrowser = args.only.some((p) => !NODE_ONLY.includes(p) && !OWN_ENGINES.includes(p));
	if (needsBuild && (args.build || !existsSync(join(buildDir, 'service-worker.js')))) {
		buildApp(log);
	}
	// A private copy: others may rebuild build/ while the bench runs.
	const work = mkdtempSync(join(tmpdir(), 'ringside-bench-work-'));
	const appDir = join(work, 'app');
	const benchPageDir = join(work, 'page');
	if (needsBuild) cpSync(buildDir, appDir, { recursive: true });
	if (needsBrowser) await bundleBenchPage(benchPageDir);

	const factory = new ServiceFactory(localToday());
	const browser = needsBrowser ? await launch() : null;
	const latencyMs = 20;
	const environment: Record<string, string | number> = {
		revision: gitRevision(),
		...(process.env.RINGSIDE_BENCH_LIB ? { 'bench page src/lib': benchLib() } : {}),
		build: needsBuild
			? new Date(statSync(join(buildDir, 'service-worker.js')).mtimeMs).toISOString()
			: 'not used',
		chromium: needsBrowser ? chromiumVersion() : 'not used',
		node: process.version,
		cpus: `${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'}`,
		'service latency': `${latencyMs} ms`,
		'load average at start': loadavg()
			.map((l) => l.toFixed(1))
			.join(' / ')
	};
	const ctx: BenchContext = {
		smoke: args.smoke,
		reps: (full) => args.reps ?? (args.smoke ? 1 : full),
		latencyMs,
		factory,
		benchPageDir,
		appDir,
		get browser() {
			if (!browser) throw new Error('no browser launched: only Node parts were selected');
			return browser;
		},
		rows: [],
		environment,
		log
	};
	const report: Report = {
		mode: args.smoke ? 'smoke' : 'full',
		startedAt: new Date(started).toISOString(),
		durationS: 0,
		environment,
		rows: ctx.rows,
		skipped: []
	};
	let crashed = false;
	try {
		for (const name of args.only) {
			log(`part: ${name}`);
			try {
				await PARTS[name](ctx);
			} catch (e) {
				crashed = true;
				const reason = e instanceof Error ? (e.stack ?? e.message) : String(e);
				log(`part ${name} failed: ${reason}`);
				report.skipped.push({ part: name, reason: reason.split('\n')[0] ?? reason });
			}
		}
	} finally {
		await browser?.close();
		factory.dispose();
		rmSync(work, { recursive: true, force: true });
	}
	report.durationS = (Date.now() - started) / 1000;
	console.log('\n' + textTable(report) + '\n');
	// Smoke results are not the project's figures: they go to git-ignored *.tmp files.
	const resultsDir = join(ROOT, 'bench', 'results');
	if (args.smoke) {
		writeReport(resultsDir, report, 'smoke');
		return finish(report, crashed);
	}
	// Parts with their own results file: their rows go there, the rest as usual.
	for (const part of OWN_RESULTS.filter((p) => args.only.includes(p))) {
		const label = `${Object.keys(PARTS).indexOf(part) + 1} ${part}`;
		writeReport(
			resultsDir,
			{
				...report,
				rows: report.rows.filter((r) => r.part === label),
				skipped: report.skipped.filter((r) => r.part === part)
			},
			part
		);
	}
	const rest = args.only.filter((p) => !OWN_RESULTS.includes(p));
	const restReport: Report = {
		...report,
		rows: report.rows.filter((r) => !OWN_RESULTS.some((p) => r.part.endsWith(` ${p}`))),
		skipped: report.skipped.filter((r) => rest.includes(r.part as PartName))
	};
	if (rest.length === 0) {
		// nothing else was measured
	} else if (args.all) {
		writeReport(resultsDir, restReport, 'latest');
	} else if (args.merge) {
		writeReport(resultsDir, mergeInto(join(resultsDir, 'latest.json'), restReport, rest), 'latest');
	} else {
		writeReport(resultsDir, restReport, 'partial');
	}
	finish(report, crashed);
}

function finish(report: Report, crashed: boolean): void {
	if (report.skipped.length > 0) console.log(markdown(report).split('## Not measured')[1] ?? '');
	process.exitCode = crashed ? 1 : 0;
}

await main();
// Leave once the report is out: nothing a part left behind (a socket, a timer, a child's pipe) may
// keep the process, and CI with it, waiting. The last submission's CI printed the whole report and
// then ran past its time limit; locally the process ends by itself, but an exit is not a guess.
process.stdout.write('', () => process.exit(process.exitCode ?? 0));
