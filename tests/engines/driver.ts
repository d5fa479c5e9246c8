/**
 * The one interface the three-engine flows are written against, and what every engine's driver
 * shares. A driver only has to run a JavaScript expression in the page, turn one into an element
 * it can click natively, navigate, reload and take a screenshot; finding elements (by test id or
 * by role and accessible name), checking that a target can be tapped, reading text and waiting
 * all happen here, the same way for Chromium, WebKit and Firefox.
 */

export type Engine = 'chromium' | 'webkit' | 'firefox';
export const ENGINES: readonly Engine[] = ['chromium', 'webkit', 'firefox'];

/** How a browser is started: `venue`, trusting the test CA (tests/support/venue.ts). */
export interface LaunchOptions {
	venue?: boolean;
}

/** What a steward sees and taps: an element by test id or by role and accessible name. */
export interface Target {
	testid?: string;
	role?: 'button' | 'link' | 'heading';
	/** The accessible name, exactly (whitespace collapsed): aria-label, a label or the text. */
	name?: string;
	/** The element's text contains this (whitespace collapsed). */
	hasText?: string;
	/** Attributes the element has, exactly (e.g. `{ 'data-key': '3' }`). */
	attr?: Record<string, string>;
	/** Only inside the (one) element this target finds. */
	within?: Target;
}

export interface Driver {
	readonly engine: Engine;
	/** Browser name and version, for the logs and the bench's report. */
	readonly version: string;
	/** Loads an address (a steward opening the app: once per flow). */
	open(url: string): Promise<void>;
	/** Reloads the page, as pulling down or reopening the app does. */
	reload(): Promise<void>;
	/** Taps the one visible, enabled, uncovered element `target` finds (waits for it). */
	tap(target: Target, timeoutMs?: number): Promise<void>;
	/** The text of the one visible element `target` finds (an input's value); null if none. */
	text(target: Target): Promise<string | null>;
	/** Whether `target` finds at least one visible element. */
	visible(target: Target): Promise<boolean>;
	/** The value of a JavaScript expression in the page (awaited when it is a promise). */
	evaluate<T>(expression: string): Promise<T>;
	/** Calls `probe` until it answers something other than null, undefined or false. */
	waitFor<T>(
		what: string,
		probe: () => Promise<T | null | undefined | false>,
		timeoutMs?: number
	): Promise<T>;
	/** Waits until the text of `target` matches. */
	waitForText(target: Target, expected: string | RegExp, timeoutMs?: number): Promise<string>;
	/** A PNG of what is on screen. */
	screenshot(file: string): Promise<void>;
	close(): Promise<void>;
}

/** How long a wait lasts unless a flow says otherwise (engines under Xvfb are slower). */
export const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The in-page part: plain JavaScript (no TypeScript helpers a transform could add), prefixed to
 * every expression, so that it survives client-side navigations and reloads alike.
 */
const PAGE_LIB = String.raw`
const norm = (s) => (s == null ? '' : String(s)).replace(/\s+/g, ' ').trim();
const ROLES = {
	button: 'button, input[type=button], input[type=submit], [role=button]',
	link: 'a[href], [role=link]',
	heading: 'h1, h2, h3, h4, h5, h6, [role=heading]'
};
const shown = (el) => {
	const r = el.getBoundingClientRect();
	if (r.width === 0 && r.height === 0) return false;
	const cs = getComputedStyle(el);
	return cs.visibility !== 'hidden' && cs.display !== 'none';
};
const accName = (el) => {
	const label = el.getAttribute('aria-label');
	if (label) return norm(label);
	const by = el.getAttribute('aria-labelledby');
	if (by) return norm(by.split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
	if (el.labels && el.labels.length > 0) return norm(el.labels[0].textContent);
	return norm(el.textContent);
};
const selectorOf = (t) => {
	const attrs = Object.entries(t.attr ?? {})
		.map(([k, v]) => '[' + k + '="' + CSS.escape(v) + '"]')
		.join('');
	const testid = t.testid ? '[data-testid="' + CSS.escape(t.testid) + '"]' : '';
	const parts = t.role ? ROLES[t.role].split(',').map((s) => s.trim()) : ['*'];
	return parts.map((p) => (p === '*' && (testid || attrs) ? '' : p) + testid + attrs).join(', ');
};
const findAll = (t) => {
	let scopes = [document];
	if (t.within) {
		const outer = findAll(t.within);
		if (outer.length !== 1) return [];
		scopes = outer;
	}
	const found = [];
	for (const scope of scopes) {
		for (const el of scope.querySelectorAll(selectorOf(t))) {
			if (t.name !== undefined && accName(el) !== t.name) continue;
			if (t.hasText !== undefined && !norm(el.textContent).includes(t.hasText)) continue;
			if (shown(el)) found.push(el);
		}
	}
	return found;
};
const findOne = (t) => {
	const all = findAll(t);
	if (all.length > 1) throw new Error('ambiguous: ' + all.length + ' elements match ' + JSON.stringify(t));
	return all[0] ?? null;
};
/** The element if a tap at its centre would reach it now (scrolled to the middle first). */
const tappable = (t) => {
	const el = findOne(t);
	if (!el) return null;
	if (el.disabled || el.getAttribute('aria-disabled') === 'true') return null;
	el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
	const r = el.getBoundingClientRect();
	const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
	return hit && (hit === el || el.contains(hit)) ? el : null;
};
const textOf = (t) => {
	const el = findOne(t);
	if (!el) return null;
	if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return el.value;
	return norm(el.innerText);
};
`;

/** An expression (in PAGE_LIB's scope) as one self-contained expression. */
export function inPage(body: string): string {
	return `(() => { ${PAGE_LIB}; return (${body}); })()`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Everything but the protocol: each engine's driver implements the four primitives below.
 * `H` is that protocol's element reference.
 */
export abstract class BaseDriver<H> implements Driver {
	abstract readonly engine: Engine;
	abstract readonly version: string;
	abstract open(url: string): Promise<void>;
	abstract reload(): Promise<void>;
	abstract evaluate<T>(expression: string): Promise<T>;
	abstract screenshot(file: string): Promise<void>;
	abstract close(): Promise<void>;
	/** The element an expression evaluates to, as a reference to click; null for null. */
	protected abstract element(expression: string): Promise<H | null>;
	/** A native click (the engine's own input events) at the element's centre. */
	protected abstract click(element: H): Promise<void>;

	async tap(target: Target, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		let last = 'not found, hidden, disabled or covered';
		for (;;) {
			try {
				const element = await this.element(inPage(`tappable(${JSON.stringify(target)})`));
				if (element !== null) {
					await this.click(element);
					return;
				}
			} catch (e) {
				// A re-render between finding and clicking (a stale element) is tried again.
				last = e instanceof Error ? e.message.split('\n')[0]! : String(e);
			}
			if (Date.now() > deadline) {
				throw new Error(`${this.engine}: could not tap ${JSON.stringify(target)}: ${last}`);
			}
			await sleep(100);
		}
	}

	text(target: Target): Promise<string | null> {
		return this.evaluate<string | null>(inPage(`textOf(${JSON.stringify(target)})`));
	}

	visible(target: Target): Promise<boolean> {
		return this.evaluate<boolean>(inPage(`findAll(${JSON.stringify(target)}).length > 0`));
	}

	async waitFor<T>(
		what: string,
		probe: () => Promise<T | null | undefined | false>,
		timeoutMs = DEFAULT_TIMEOUT_MS
	): Promise<T> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			let error = '';
			try {
				const value = await probe();
				if (value !== null && value !== undefined && value !== false) return value;
			} catch (e) {
				// A navigation may destroy the context an evaluation ran in: try again.
				error = ` (last error: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`;
			}
			if (Date.now() > deadline) {
				throw new Error(
					`${this.engine}: timed out after ${timeoutMs} ms waiting for ${what}${error}`
				);
			}
			await sleep(100);
		}
	}

	async waitForText(
		target: Target,
		expected: string | RegExp,
		timeoutMs = DEFAULT_TIMEOUT_MS
	): Promise<string> {
		let seen: string | null = null;
		const matches = (s: string) =>
			typeof expected === 'string' ? s === expected : expected.test(s);
		try {
			return await this.waitFor(
				`${JSON.stringify(target)} to read ${String(expected)}`,
				async () => {
					seen = await this.text(target);
					return seen !== null && matches(seen) ? seen : null;
				},
				timeoutMs
			);
		} catch (e) {
			throw new Error(
				`${e instanceof Error ? e.message : String(e)}; it read ${JSON.stringify(seen)}`,
				{ cause: e }
			);
		}
	}
}
