// The command line of server/main.ts: its usage text and the parsing of its arguments (and of
// the environment: PORT, HOST, DATABASE_URL, RINGSIDE_DB, RINGSIDE_UPSTREAM) into
// ServiceOptions; a bad argument exits with the usage (status 2). Long because the usage text
// is the service's manual for the organiser (every option, in words), beside its one parser.
import type { ServiceOptions } from './app.ts';
import { AUTH_MODES, type AuthMode } from './auth/auth.ts';
import { parseDelayRange, type FaultOptions } from './http/faults.ts';
import { mulberry32, SEED_SIZES, type SeedSize } from './seed/seed.ts';
import { isPostgresUrl } from './store/open.ts';
import { parseTimerSpec } from './timer/timer.ts';

export const USAGE = `Ringside Competition Results Service

Usage: tsx server/main.ts [options]

Options:
  --port <n>          TCP port (env PORT, default 4173; 0 = any free port)
  --host <addr>       Interface to listen on (env HOST, default 127.0.0.1;
                      use 0.0.0.0 to be reachable from other devices on the event Wi-Fi)
  --db <file|url>     SQLite file (env RINGSIDE_DB, default ./data/ringside.sqlite), or a
                      PostgreSQL database postgres://user@host:port/name (env DATABASE_URL),
                      which several instances of the service can share (docs/deployment.md)
  --pool <n>          PostgreSQL connections of this instance (default 10)
  --reset             Delete the database and seed it again
  --seed <size>       small | realistic | stress: data created in a new database (default realistic)
  --seed-date <date>  Anchor date YYYY-MM-DD of the seeded event (default today)
  --no-etag           No conditional requests. By default every GET of /api (resources and list
                      pages) carries an ETag, If-None-Match answers 304 and a PUT's If-Match
                      is checked (412 on mismatch)
  --no-push           No push channel: competitions carry no 'changes' link and its event stream
                      answers 404 (clients then poll)
  --max-streams <n>   Event streams this instance keeps open at once (default 1000; more are
                      answered 503): about 50 KB of memory each
  --latency <ms>      Delay every /api answer by this many milliseconds
  --cors <origins>    Comma-separated allowed origins, or * (default: CORS off)
  --app <dir>         Serve the built app from this folder at / (e.g. build)
  --upstream <url>    Proxy mode: forward /api/* to this base URL (env RINGSIDE_UPSTREAM)
  --mirror <url>      Mirror mode: copy the competitions of this results service into a new
                      database, serve the phones from the copy, publish every change to it
                      and take its changes (README, "Running an event with the federation's
                      service"; env RINGSIDE_MIRROR; credentials for it, when it wants
                      them: env RINGSIDE_MIRROR_AUTHORIZATION, e.g. "Bearer …")
  --mirror-competitions <ids>  Mirror mode: the competitions to copy, e.g. 12,13 (default:
                      every one not over yet)
  --mirror-pull <ms>  Mirror mode: how often the upstream is read again (default 5000)
  --quiet             No request log lines
  --timer <source>    Read a chronometer and relay its events to the phones of a ring
                      (repeatable, one per ring; see docs/service.md, "Timer bridge"):
                        tcp:<host>:<port>              the chronometer's TCP socket
                        serial:<device>[@<baud>]       e.g. serial:/dev/ttyUSB0@9600
                      prefixed ring=<ringId>, to choose the ring, e.g. ring=2,tcp:10.0.0.9:7700;
                      without it: the first ring of the one competition in progress

HTTPS at the venue (README, "HTTPS at the venue"): phones keep the app, offline, only from a
secure address, and a network address over plain HTTP is not one:
  --tls local         The event's own certificate authority: made at the first start beside the
                      database (or in --tls-dir), with a server certificate for every address
                      and name of this laptop; each phone trusts it once on the trust page
                      (http://<address>:<port>/trust, printed with a QR code)
  --tls-cert <file>   Your own certificate for the name the phones open (PEM, the chain after
  --tls-key <file>    the certificate; e.g. certbot's fullchain.pem and privkey.pem); read again
                      when the files change. The start refuses one that names no address or
                      --allow-host name this service answers on, or that expires before the
                      event ends
  --tls-dir <dir>     Where --tls local keeps its files
  --http-port <n>     Plain HTTP on this port too (e.g. 80), redirecting to HTTPS and serving
                      the trust page; the HTTPS port answers plain HTTP the same way

Security at an event (see docs/service.md):
  --auth <mode>       Who may write. required: each device joins with a link or QR code and
                      acts by its role (ring secretary, ring steward of some rings, viewer);
                      open: anyone who reaches the service may write. Default: open when
                      listening on 127.0.0.1, ::1 or localhost only (and no other
                      --allow-host name is served), else required. With
                      required, the start prints the secretary's join link and QR code
  --open-reads        With --auth required: anyone on the network may read (viewers,
                      spectators' phones, big screens) without joining; writes still need one
  --allow-host <name> Also serve this host name (repeatable; * = any). Served by default:
                      127.0.0.1, localhost, ::1, the --host address and, with 0.0.0.0,
                      every address of this machine. Any other Host is answered 400
  --trust-proxy <list>  Addresses or CIDRs of reverse proxies in front (comma-separated,
                      repeatable, e.g. 127.0.0.1 or 10.0.0.0/8): a request from one is
                      from the client its X-Forwarded-For names (the rightmost address not
                      itself trusted) for the failure limit, the read budget, the logs and
                      the devices' last address;
                      from anyone else X-Forwarded-For is ignored
  --min-free-mb <n>   Refuse writes (507) while the database folder has less free disk
                      space than this (default 200; 0 = never)
  --put-log-rows <n>  Rows the PUT log keeps, the newest (default 100000)
  --read-budget <n>   Items one client may read per second from lists (default 2000,
                      bursts of 5x that), else 429 with Retry-After; off = no budget
  --failure-limit <n> Failed joins and unknown credentials one address may send per minute
                      (default 30, bursts of 20), else 429 with Retry-After; off = no limit
  --put-log-refused <n>  Rows of refused PUTs the PUT log keeps per device (default 1000);
                      they never push out an accepted change's row
  --upstream-max-mb <n>  Proxy mode: largest upstream answer passed on (default 8; 502 beyond)

Fault injection on /api requests (for chaos tests; off by default):
  --fault-503 <rate>      Answer this share (0..1) of requests 503 with Retry-After: 1
  --fault-reset <rate>    Reset the connection of this share (0..1) of requests: half before
                          handling, half after (a PUT is applied and its answer is lost)
  --fault-delay <ms>      Random delay before handling, e.g. 0-300 (or a fixed 200)
  --fault-unreachable     Drop every /api connection at once, as if the service were down
  --fault-seed <n>        Seed of the fault dice, for reproducible runs (default: random)
  --help              Show this help
`;

function fail(message: string): never {
	console.error(`${message}\n\n${USAGE}`);
	process.exit(2);
}

/** `--db`: a postgres:// URL is a PostgreSQL database, anything else a SQLite file. */
const dbOption = (v: string): Pick<ServiceOptions, 'dbFile' | 'databaseUrl'> =>
	isPostgresUrl(v) ? { databaseUrl: v } : { dbFile: v };

export function parseArgs(
	argv: string[],
	env: NodeJS.ProcessEnv
): ServiceOptions & { help?: boolean } {
	const faults: FaultOptions = {};
	let faultSeed: number | undefined;
	const rate = (flag: string, text: string): number => {
		const n = Number(text);
		if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
			fail(`${flag} must be a number from 0 to 1`);
		}
		return n;
	};
	const opts: ServiceOptions & { help?: boolean } = {
		port: env.PORT !== undefined && env.PORT !== '' ? Number(env.PORT) : 4173,
		host: env.HOST || '127.0.0.1',
		...dbOption(env.DATABASE_URL || env.RINGSIDE_DB || 'data/ringside.sqlite'),
		upstream: env.RINGSIDE_UPSTREAM || undefined,
		mirror: env.RINGSIDE_MIRROR || undefined,
		mirrorAuthorization: env.RINGSIDE_MIRROR_AUTHORIZATION || undefined,
		// At an event: cheap refreshes (304) and no lost update between two writers (If-Match).
		etag: true
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] ?? '';
		const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg];
		const value = (): string => {
			if (inline !== undefined) return inline;
			const v = argv[++i];
			if (v === undefined) fail(`Option ${flag} needs a value`);
			return v;
		};
		switch (flag) {
			case '--help':
			case '-h':
				opts.help = true;
				break;
			case '--port': {
				const n = Number(value());
				if (!Number.isInteger(n) || n < 0 || n > 65535) fail('--port must be 0..65535');
				opts.port = n;
				break;
			}
			case '--host':
				opts.host = value();
				break;
			case '--db': {
				delete opts.dbFile;
				delete opts.databaseUrl;
				Object.assign(opts, dbOption(value()));
				break;
			}
			case '--pool': {
				const n = Number(value());
				if (!Number.isInteger(n) || n < 1) fail('--pool must be an integer >= 1');
				opts.poolSize = n;
				break;
			}
			case '--reset':
				opts.reset = true;
				break;
			case '--seed': {
				const v = value();
				if (!SEED_SIZES.includes(v as SeedSize))
					fail(`--seed must be one of ${SEED_SIZES.join(', ')}`);
				opts.seed = v as SeedSize;
				break;
			}
			case '--seed-date':
				opts.seedDate = value();
				break;
			case '--etag':
				opts.etag = true;
				break;
			case '--no-etag':
				opts.etag = false;
				break;
			case '--no-push':
				opts.push = false;
				break;
			case '--max-streams': {
				const n = Number(value());
				if (!Number.isSafeInteger(n) || n < 1) fail('--max-streams must be an integer >= 1');
				opts.push = { ...(typeof opts.push === 'object' ? opts.push : {}), maxStreams: n };
				break;
			}
			case '--latency': {
				const n = Number(value());
				if (!Number.isFinite(n) || n < 0) fail('--latency must be a number of milliseconds >= 0');
				opts.latencyMs = n;
				break;
			}
			case '--cors':
				opts.corsOrigins = value()
					.split(',')
					.map((s) => s.trim())
					.filter(Boolean);
				break;
			case '--app':
				opts.appDir = value();
				break;
			case '--upstream':
				opts.upstream = value();
				break;
			case '--mirror':
				opts.mirror = value();
				break;
			case '--mirror-competitions': {
				const ids = value()
					.split(',')
					.map((s) => s.trim())
					.filter(Boolean)
					.map(Number);
				if (ids.length === 0 || ids.some((n) => !Number.isSafeInteger(n) || n < 1)) {
					fail('--mirror-competitions must be competition ids, e.g. 12,13');
				}
				opts.mirrorCompetitions = ids;
				break;
			}
			case '--mirror-pull': {
				const n = Number(value());
				if (!Number.isSafeInteger(n) || n < 1) fail('--mirror-pull must be an integer >= 1');
				opts.mirrorPullMs = n;
				break;
			}
			case '--quiet':
				opts.quiet = true;
				break;
			case '--timer': {
				const v = value();
				try {
					parseTimerSpec(v);
				} catch (e) {
					fail(e instanceof Error ? e.message : String(e));
				}
				opts.timer = [...((opts.timer as string[] | undefined) ?? []), v];
				break;
			}
			case '--auth': {
				const v = value();
				if (!AUTH_MODES.includes(v as AuthMode)) fail('--auth must be required or open');
				opts.auth = v as AuthMode;
				break;
			}
			case '--open-reads':
				opts.openReads = true;
				break;
			case '--tls': {
				const v = value();
				if (v !== 'local') fail("--tls must be 'local' (or give --tls-cert and --tls-key)");
				opts.tls = 'local';
				break;
			}
			case '--tls-cert':
				opts.tlsCert = value();
				break;
			case '--tls-key':
				opts.tlsKey = value();
				break;
			case '--tls-dir':
				opts.tlsDir = value();
				break;
			case '--http-port': {
				const n = Number(value());
				if (!Number.isInteger(n) || n < 0 || n > 65535) fail('--http-port must be 0..65535');
				opts.httpPort = n;
				break;
			}
			case '--allow-host':
				opts.allowHosts = [...(opts.allowHosts ?? []), value()];
				break;
			case '--trust-proxy': {
				const entries = value()
					.split(',')
					.map((v) => v.trim())
					.filter((v) => v !== '');
				if (entries.length === 0) fail('--trust-proxy needs an address or CIDR, e.g. 127.0.0.1');
				opts.trustProxy = [...(opts.trustProxy ?? []), ...entries];
				break;
			}
			case '--min-free-mb': {
				const n = Number(value());
				if (!Number.isFinite(n) || n < 0) fail('--min-free-mb must be a number >= 0');
				opts.minFreeBytes = Math.round(n * 1024 * 1024);
				break;
			}
			case '--put-log-rows': {
				const n = Number(value());
				if (!Number.isSafeInteger(n) || n < 1) fail('--put-log-rows must be an integer >= 1');
				opts.putLogMaxRows = n;
				break;
			}
			case '--read-budget': {
				const v = value();
				if (v === 'off') {
					opts.readBudget = false;
					break;
				}
				const n = Number(v);
				if (!Number.isFinite(n) || n <= 0) fail("--read-budget must be a number > 0 or 'off'");
				opts.readBudget = { perSecond: n, burst: n * 5 };
				break;
			}
			case '--failure-limit': {
				const v = value();
				if (v === 'off') {
					opts.failureLimit = false;
					break;
				}
				const n = Number(v);
				if (!Number.isFinite(n) || n <= 0) fail("--failure-limit must be a number > 0 or 'off'");
				opts.failureLimit = { perMinute: n };
				break;
			}
			case '--put-log-refused': {
				const n = Number(value());
				if (!Number.isSafeInteger(n) || n < 1) fail('--put-log-refused must be an integer >= 1');
				opts.putLogRefusedPerSender = n;
				break;
			}
			case '--upstream-max-mb': {
				const n = Number(value());
				if (!Number.isFinite(n) || n <= 0) fail('--upstream-max-mb must be a number > 0');
				opts.upstreamMaxBytes = Math.round(n * 1024 * 1024);
				break;
			}
			case '--fault-503':
				faults.error503Rate = rate(flag, value());
				break;
			case '--fault-reset':
				faults.resetRate = rate(flag, value());
				break;
			case '--fault-delay': {
				const range = parseDelayRange(value());
				if (!range) fail('--fault-delay must be <ms> or <min>-<max> with min <= max');
				faults.delayMs = range;
				break;
			}
			case '--fault-unreachable':
				faults.unreachable = true;
				break;
			case '--fault-seed': {
				const n = Number(value());
				if (!Number.isInteger(n)) fail('--fault-seed must be an integer');
				faultSeed = n;
				break;
			}
			default:
				fail(`Unknown option ${arg}`);
		}
	}
	if (opts.port !== undefined && (!Number.isInteger(opts.port) || opts.port < 0)) {
		fail('PORT must be an integer 0..65535');
	}
	if (Object.keys(faults).length > 0) {
		if (faultSeed !== undefined) faults.random = mulberry32(faultSeed);
		opts.faults = faults;
	}
	return opts;
}
