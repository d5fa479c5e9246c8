// The Host and Origin allow-list against DNS rebinding and cross-site writes. A request whose
// Host (or, on the local service, X-Forwarded-Host, which its links are built on) names none of
// the service's own addresses is answered 400; a PUT whose Origin is neither the service's own
// origin nor a listed CORS origin is answered 403.
import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';
import { HttpError } from '../http/errors.ts';

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

/** The host name of a Host field (`name`, `name:port`, `[v6]:port`), lower case, without port. */
export function hostName(field: string): string {
	let h = field.trim().toLowerCase();
	if (h.startsWith('[')) {
		const end = h.indexOf(']');
		h = end > 0 ? h.slice(1, end) : h;
	} else if (h.indexOf(':') === h.lastIndexOf(':')) {
		const colon = h.indexOf(':');
		if (colon >= 0) h = h.slice(0, colon);
	}
	return h.replace(/\.$/, '');
}

const isWildcard = (host: string): boolean => host === '0.0.0.0' || host === '::' || host === '';

function interfaceAddresses(): string[] {
	const out: string[] = [];
	for (const list of Object.values(networkInterfaces())) {
		for (const a of list ?? []) out.push(a.address.toLowerCase().replace(/%.*$/, ''));
	}
	return out;
}

export interface HostCheck {
	/** Throws 400 when the Host (or X-Forwarded-Host, if `forwarded`) is not allowed. */
	check(req: IncomingMessage, forwarded: boolean): void;
	/** Whether a host name is allowed. */
	allows(name: string): boolean;
}

/**
 * The allowed host names: the loopback names, the address listened on (every interface
 * address when it is a wildcard) and `extra` (`--allow-host`; `*` turns the check off).
 */
export function createHostCheck(listenHost: string, extra: readonly string[] = []): HostCheck {
	const any = extra.some((h) => h.trim() === '*');
	const fixed = new Set([...LOOPBACK, ...extra.map(hostName)]);
	const wildcard = isWildcard(listenHost);
	if (!wildcard) fixed.add(hostName(listenHost.includes(':') ? `[${listenHost}]` : listenHost));
	const allows = (name: string): boolean => {
		if (any || fixed.has(name)) return true;
		// Interface addresses can change while the service runs (a new Wi-Fi lease): read anew.
		return wildcard && interfaceAddresses().includes(name);
	};
	const refuse = (what: string, value: string): never => {
		throw new HttpError(
			400,
			`${what} '${value}' is not an address of this service; start it with --allow-host <name> to serve that name`
		);
	};
	return {
		allows,
		check(req, forwarded) {
			const host = req.headers.host;
			if (host !== undefined && !allows(hostName(host))) refuse('Host', host);
			const fwd = req.headers['x-forwarded-host'];
			const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim();
			if (forwarded && first && !allows(hostName(first))) refuse('X-Forwarded-Host', first);
		}
	};
}

/**
 * Whether `origin` is the service's own origin as the client reached it: its host:port is the
 * request's Host (or, with `forwarded`, its X-Forwarded-Host, set by a proxy in front).
 */
export function isOwnOrigin(req: IncomingMessage, origin: string, forwarded: boolean): boolean {
	let url: URL;
	try {
		url = new URL(origin);
	} catch {
		return false;
	}
	if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
		return false;
	}
	const hosts = [req.headers.host];
	const fwd = req.headers['x-forwarded-host'];
	if (forwarded) hosts.push((Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim());
	return hosts.some((h) => h !== undefined && sameHost(h, url));
}

function sameHost(field: string, url: URL): boolean {
	const h = field.trim().toLowerCase();
	const defaultPort = url.protocol === 'https:' ? '443' : '80';
	const withPort = url.port ? url.host : `${url.host}:${defaultPort}`;
	return h === url.host || h === withPort;
}
