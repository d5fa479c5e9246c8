import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { freePort } from '../../../scripts/free-port';
import { BaseDriver } from '../driver';

/**
 * WebKitGTK (Safari's engine) through its own W3C WebDriver, `WebKitWebDriver` (Debian's
 * webkit2gtk-driver), driving MiniBrowser on a private Xvfb display. Plain WebDriver over HTTP:
 * no client library is needed for the few commands used here.
 */
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER =
	process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** W3C's key of an element reference in JSON. */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
type ElementRef = string;

/** MiniBrowser's window cannot be narrower (its toolbar); the height gives about a phone's view. */
const WINDOW = { width: 447, height: 953 };

/** Starts `Xvfb -displayfd` and answers the display number it chose. */
async function startXvfb(): Promise<{ process: ChildProcess; display: string }> {
	const xvfb = spawn(
		'Xvfb',
		['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
		{
			stdio: ['ignore', 'ignore', 'pipe', 'pipe']
		}
	);
	const display = await new Promise<string>((resolve, reject) => {
		let out = '';
		let err = '';
		const timer = setTimeout(() => reject(new Error(`Xvfb did not start: ${err}`)), 10_000);
		xvfb.stderr?.on('data', (d: Buffer) => (err += d.toString()));
		xvfb.stdio[3]?.on('data', (d: Buffer) => {
			out += d.toString();
			if (out.includes('\n')) {
				clearTimeout(timer);
				resolve(out.trim());
			}
		});
		xvfb.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`Xvfb exited (${code}): ${err}`));
		});
		xvfb.once('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
	});
	return { process: xvfb, display: `:${display}` };
}

function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve();
		});
		child.kill('SIGTERM');
	});
}

class WebDriverError extends Error {
	constructor(
		readonly error: string,
		message: string
	) {
		super(`${error}: ${message}`);
	}
}

export class WebKitDriver extends BaseDriver<ElementRef> {
	readonly engine = 'webkit' as const;

	private constructor(
		private readonly base: string,
		private readonly processes: ChildProcess[],
		readonly version: string
	) {
		super();
	}

	static async launch(): Promise<WebKitDriver> {
		const xvfb = await startXvfb();
		const processes: ChildProcess[] = [xvfb.process];
		try {
			const port = await freePort();
			const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`, '--host=127.0.0.1'], {
				// English, as the other engines' contexts are (the machine's locale is C).
				env: { ...process.env, DISPLAY: xvfb.display, LANG: 'en_US.UTF-8', LANGUAGE: 'en_US' },
				stdio: ['ignore', 'ignore', 'pipe']
			});
			processes.push(driver);
			let driverErr = '';
			driver.stderr?.on('data', (d: Buffer) => (driverErr += d.toString()));
			const base = `http://127.0.0.1:${port}`;
			const deadline = Date.now() + 10_000;
			for (;;) {
				try {
					const status = await fetch(`${base}/status`);
					if (status.ok) break;
				} catch {
					// not listening yet
				}
				if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not start: ${driverErr}`);
				await new Promise((r) => setTimeout(r, 100));
			}
			const created = await fetch(`${base}/session`, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({
					capabilities: {
						alwaysMatch: {
							'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] }
						}
					}
				})
			});
			const session = (await created.json()) as {
				value: { sessionId: string; capabilities: { browserVersion?: string }; message?: string };
			};
			if (!created.ok) throw new Error(`no WebKit session: ${JSON.stringify(session.value)}`);
			const webkit = new WebKitDriver(
				`${base}/session/${session.value.sessionId}`,
				processes,
				`WebKitGTK ${session.value.capabilities.browserVersion ?? '?'} (MiniBrowser)`
			);
			await webkit.call('POST', '/window/rect', WINDOW);
			return webkit;
		} catch (e) {
			for (const p of processes.reverse()) await stop(p);
			throw e;
		}
	}

	private async call<T>(
		method: 'GET' | 'POST' | 'DELETE',
		path: string,
		body?: unknown
	): Promise<T> {
		const answer = await fetch(this.base + path, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body)
		});
		const json = (await answer.json()) as { value: T & { error?: string; message?: string } };
		if (!answer.ok) {
			throw new WebDriverError(json.value.error ?? String(answer.status), json.value.message ?? '');
		}
		return json.value;
	}

	async open(url: string): Promise<void> {
		await this.call('POST', '/url', { url });
	}

	async reload(): Promise<void> {
		await this.call('POST', '/refresh', {});
	}

	async evaluate<T>(expression: string): Promise<T> {
		// Promises are settled in the page; a rejection comes back as a value, then thrown here.
		const script = `const done = arguments[arguments.length - 1];
Promise.resolve().then(() => ${expression}).then(
	(value) => done({ value: value === undefined ? null : value }),
	(e) => done({ error: String((e && e.message) || e) })
);`;
		const result = await this.call<{ value?: T; error?: string }>('POST', '/execute/async', {
			script,
			args: []
		});
		if (result.error !== undefined) throw new Error(result.error);
		return result.value as T;
	}

	protected async element(expression: string): Promise<ElementRef | null> {
		const value = await this.call<Record<string, string> | null>('POST', '/execute/sync', {
			script: `return ${expression};`,
			args: []
		});
		return value?.[ELEMENT_KEY] ?? null;
	}

	protected async click(element: ElementRef): Promise<void> {
		await this.call('POST', `/element/${element}/click`, {});
	}

	async screenshot(file: string): Promise<void> {
		const png = await this.call<string>('GET', '/screenshot');
		writeFileSync(file, Buffer.from(png, 'base64'));
	}

	async close(): Promise<void> {
		try {
			await this.call('DELETE', '');
		} catch {
			// the browser may be gone already; the processes are stopped below anyway
		}
		for (const p of [...this.processes].reverse()) await stop(p);
	}
}
