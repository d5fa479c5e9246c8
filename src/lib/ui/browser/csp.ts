/**
 * The app's own Content-Security-Policy and the addresses it lets the page connect to. The build
 * writes the policy into the page (svelte.config.js: `connect-src 'self'` plus RINGSIDE_CONNECT_SRC),
 * and the browser refuses a fetch to any other address with the same bare network error as a
 * service that is down. Telling the two apart lets the app say what is wrong and what helps (in
 * words in the catalogue as errors.blocked-by-policy).
 *
 * Source matching follows CSP Level 3, "Does url match expression in origin" (host, port and path
 * sources, scheme sources, `*`, 'self', 'none'); nonces, hashes and other keywords match no URL.
 */

/** The sources a policy allows fetches to (connect-src, else default-src); null: no restriction. */
export function connectSources(policy: string): string[] | null {
	const directives = new Map<string, string[]>();
	for (const part of policy.split(';')) {
		const [name, ...values] = part.trim().split(/\s+/);
		// The first of two directives of the same name counts (CSP3 2.2.1).
		if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), values);
	}
	return directives.get('connect-src') ?? directives.get('default-src') ?? null;
}

const DEFAULT_PORTS: Record<string, string> = {
	'http:': '80',
	'https:': '443',
	'ws:': '80',
	'wss:': '443'
};
const portOf = (url: URL) => url.port || DEFAULT_PORTS[url.protocol] || '';

/** CSP3 "scheme-part match": an http source also allows https, and ws allows wss. */
function schemeMatches(source: string, scheme: string): boolean {
	const s = source.toLowerCase();
	if (s === scheme) return true;
	return (s === 'http:' && scheme === 'https:') || (s === 'ws:' && scheme === 'wss:');
}

function hostMatches(source: string, host: string): boolean {
	const s = source.toLowerCase();
	if (s === '*') return true;
	if (s.startsWith('*.')) return host.endsWith(s.slice(1));
	return s === host;
}

const HOST_SOURCE =
	/^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::(\d+|\*))?(\/[^?#]*)?$/i;

/** Whether one source expression allows `url`, for a page of origin `self`. */
export function sourceAllows(source: string, url: URL, self: URL): boolean {
	const s = source.trim();
	if (s === "'self'") {
		if (url.origin === self.origin) return true;
		// CSP3: 'self' also allows the same host over a secure scheme.
		return (
			url.host === self.host &&
			((self.protocol === 'http:' && (url.protocol === 'https:' || url.protocol === 'wss:')) ||
				(self.protocol === 'https:' && url.protocol === 'wss:'))
		);
	}
	if (s.startsWith("'")) return false;
	if (s === '*') return ['http:', 'https:', 'ws:', 'wss:', self.protocol].includes(url.protocol);
	if (/^[a-z][a-z0-9+.-]*:$/i.test(s)) return schemeMatches(s, url.protocol);
	const match = HOST_SOURCE.exec(s);
	if (!match) return false;
	const [, scheme, host = '', port, path] = match;
	if (
		scheme
			? !schemeMatches(`${scheme}:`, url.protocol)
			: !schemeMatches(self.protocol, url.protocol)
	) {
		return false;
	}
	if (!hostMatches(host, url.hostname.toLowerCase())) return false;
	if (port !== '*') {
		const wanted = port ?? DEFAULT_PORTS[scheme ? `${scheme.toLowerCase()}:` : url.protocol] ?? '';
		// An http source with its default port also allows https on 443 (CSP3 6.7.2.9).
		const upgraded = port === undefined && url.protocol === 'https:' && portOf(url) === '443';
		if (portOf(url) !== wanted && !upgraded) return false;
	}
	if (path && path !== '/') {
		const target = decodePath(url.pathname);
		const wanted = decodePath(path);
		if (wanted.endsWith('/') ? !target.startsWith(wanted) : target !== wanted) return false;
	}
	return true;
}

/** A path percent-decoded for comparison; as written when it is not valid percent-encoding. */
function decodePath(path: string): string {
	try {
		return decodeURIComponent(path);
	} catch {
		return path;
	}
}

/** Whether a policy lets a page of origin `self` connect to `url`. */
export function policyAllows(policy: string | null, url: string, self: string): boolean {
	if (policy === null) return true;
	const sources = connectSources(policy);
	if (sources === null) return true;
	let target: URL;
	try {
		target = new URL(url, self);
	} catch {
		return true;
	}
	return sources.some((source) => sourceAllows(source, target, new URL(self)));
}

function originOf(url: string): string | null {
	try {
		return new URL(url).origin;
	} catch {
		return null;
	}
}

/** The policy the page runs under, as Kit wrote it into the page; null if there is none. */
export function pagePolicy(): string | null {
	if (typeof document === 'undefined') return null;
	const meta = document.querySelector<HTMLMetaElement>(
		'meta[http-equiv="content-security-policy" i]'
	);
	return meta?.content ?? null;
}

/** Whether this page's policy lets it connect to `url`. */
export function pageAllowsConnect(url: string): boolean {
	if (typeof location === 'undefined') return true;
	return policyAllows(pagePolicy(), url, location.origin);
}

/**
 * Watches for fetches the browser refused under a policy (also one sent as a header, which the page
 * cannot read): `blocked(url)` once the request has failed. Stop it when done.
 */
export function watchConnectViolations(target: EventTarget = document): {
	blocked(url: string): Promise<boolean>;
	stop(): void;
} {
	const seen: string[] = [];
	const listener = (event: Event) => {
		const e = event as SecurityPolicyViolationEvent;
		if (e.effectiveDirective === 'connect-src' || e.effectiveDirective === 'default-src') {
			seen.push(e.blockedURI);
		}
	};
	target.addEventListener('securitypolicyviolation', listener);
	return {
		async blocked(url: string) {
			// The event is queued as a task of its own, which may run after the fetch has failed.
			await new Promise((resolve) => setTimeout(resolve, 0));
			const origin = originOf(url);
			// A browser may report only the origin of a cross-origin address.
			return seen.some(
				(blocked) => blocked === url || (origin !== null && originOf(blocked) === origin)
			);
		},
		stop() {
			target.removeEventListener('securitypolicyviolation', listener);
		}
	};
}
