// Who a request comes from (issue 31): its connection's address, or behind a trusted proxy the
// client that proxy names. Every consumer of a client's address takes it from here through
// `clientAddress(req)`: the failure limit, the read budget, the PUT log, the request log and the
// devices' last address.
//
// `--trust-proxy <address|CIDR>[,…]`: a connection from one of these names its client by
// X-Forwarded-For, the rightmost address in it that is not itself trusted (each proxy appends the
// address it was connected from, so whatever lies left of that was written by the client and can
// be forged). A connection from anyone else is its own address: an X-Forwarded-For it sends is
// ignored.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

export type ClientAddressOf = (req: IncomingMessage) => string;

/** An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as IPv4; others as they are. */
export function plainAddress(a: string): string {
	return a.toLowerCase().startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** The socket's address, before any proxy is considered. */
export function socketAddress(req: IncomingMessage): string {
	return plainAddress(req.socket.remoteAddress ?? '');
}

/** Throws, in words, on an entry of `--trust-proxy` that is no address or CIDR. */
export function parseTrustedProxies(entries: readonly string[]): BlockList {
	const list = new BlockList();
	for (const raw of entries) {
		const entry = raw.trim();
		const [address = '', bits, ...rest] = entry.split('/');
		const family = isIP(address);
		const max = family === 4 ? 32 : 128;
		const prefix = bits === undefined ? max : Number(bits);
		if (
			family === 0 ||
			rest.length > 0 ||
			(bits !== undefined && !/^\d{1,3}$/.test(bits)) ||
			prefix > max
		) {
			throw new Error(
				`--trust-proxy: '${entry}' is not an address or CIDR (e.g. 127.0.0.1, 10.0.0.0/8, fd00::/8)`
			);
		}
		const type = family === 4 ? 'ipv4' : 'ipv6';
		if (prefix === max) list.addAddress(address, type);
		else list.addSubnet(address, prefix, type);
	}
	return list;
}

/** The function every consumer asks; without trusted proxies, the socket's address. */
export function createClientAddress(trusted: readonly string[] = []): ClientAddressOf {
	if (trusted.length === 0) return socketAddress;
	const list = parseTrustedProxies(trusted);
	const isTrusted = (a: string): boolean => {
		const family = isIP(a);
		return family !== 0 && list.check(a, family === 4 ? 'ipv4' : 'ipv6');
	};
	return (req) => {
		let client = socketAddress(req);
		if (!isTrusted(client)) return client;
		// Several X-Forwarded-For headers arrive joined with ", " (node:http), in order.
		const header = req.headers['x-forwarded-for'];
		const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
			.split(',')
			.map((h) => plainAddress(stripPort(h.trim())))
			.filter((h) => h !== '');
		for (let i = hops.length - 1; i >= 0; i--) {
			const hop = hops[i]!;
			// Not an address: written by someone untrusted. The last trusted hop is all we know.
			if (isIP(hop) === 0) return client;
			client = hop;
			if (!isTrusted(hop)) return hop;
		}
		return client;
	};
}

/** `[v6]:port` or `v4:port`, as some proxies write them, without the port. */
function stripPort(hop: string): string {
	const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
	if (bracketed) return bracketed[1]!;
	const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
	return v4 ? v4[1]! : hop;
}

/**
 * The key a per-client limit counts under (the failure limit, the read budget): an IPv4 address
 * as it is, an IPv6 address by its /64, the block one subscriber's devices get (RFC 6177), so that
 * a client cannot escape a limit by moving to another of its own addresses.
 */
export function limitKey(address: string): string {
	if (isIP(address) !== 6) return address;
	const groups = expandIpv6(address);
	return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

/** The eight 16-bit groups of an IPv6 address, in lowercase hex without leading zeros. */
function expandIpv6(address: string): string[] | null {
	const plain = address.split('%')[0]!.toLowerCase();
	const [head = '', tail, ...rest] = plain.split('::');
	if (rest.length > 0) return null;
	const part = (s: string): string[] => (s === '' ? [] : s.split(':'));
	const left = part(head);
	const right = part(tail ?? '');
	// A dotted IPv4 tail (::ffff:a.b.c.d and the like) is two groups.
	const last = right.length > 0 ? right : left;
	const dotted = last.at(-1);
	if (dotted?.includes('.')) {
		const bytes = dotted.split('.').map(Number);
		last.splice(
			-1,
			1,
			((bytes[0]! << 8) | bytes[1]!).toString(16),
			((bytes[2]! << 8) | bytes[3]!).toString(16)
		);
	}
	const missing = 8 - left.length - right.length;
	if (tail === undefined ? missing !== 0 : missing < 0) return null;
	const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
	return groups.map((g) => parseInt(g, 16).toString(16));
}
