// Who a request comes from, with and without trusted proxies (issue 31).
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createClientAddress, limitKey, parseTrustedProxies } from './client-address.ts';

const req = (remoteAddress: string, xff?: string | string[]): IncomingMessage =>
	({
		socket: { remoteAddress },
		headers: xff === undefined ? {} : { 'x-forwarded-for': xff }
	}) as unknown as IncomingMessage;

describe('the client address', () => {
	it('is the socket address without trusted proxies, X-Forwarded-For ignored', () => {
		const of = createClientAddress();
		expect(of(req('::ffff:192.0.2.7', '203.0.113.9'))).toBe('192.0.2.7');
		expect(of(req('fd00::2'))).toBe('fd00::2');
	});

	it('behind a trusted proxy: the rightmost address that is not itself trusted', () => {
		const of = createClientAddress(['127.0.0.1', '10.0.0.0/8']);
		expect(of(req('127.0.0.1', '192.0.2.7'))).toBe('192.0.2.7');
		// A client's own X-Forwarded-For is left of what the proxy appended: forged, not taken.
		expect(of(req('127.0.0.1', '198.51.100.1, 192.0.2.7'))).toBe('192.0.2.7');
		// Two proxies, both trusted: the one before them.
		expect(of(req('127.0.0.1', '198.51.100.1, 192.0.2.7, 10.1.2.3'))).toBe('192.0.2.7');
		// Several headers, as node joins them.
		expect(of(req('::ffff:127.0.0.1', ['192.0.2.7', '10.1.2.3']))).toBe('192.0.2.7');
		// Ports and brackets, as some proxies write them.
		expect(of(req('127.0.0.1', '192.0.2.7:51000'))).toBe('192.0.2.7');
		expect(of(req('127.0.0.1', '[2001:db8::5]:443'))).toBe('2001:db8::5');
		expect(of(req('127.0.0.1', '::ffff:192.0.2.7'))).toBe('192.0.2.7');
	});

	it('from anyone else: its own address, whatever X-Forwarded-For it sends', () => {
		const of = createClientAddress(['127.0.0.1']);
		expect(of(req('192.0.2.66', '127.0.0.1'))).toBe('192.0.2.66');
		expect(of(req('192.0.2.66', '192.0.2.7'))).toBe('192.0.2.66');
	});

	it('a trusted proxy with no X-Forwarded-For, or only trusted hops, or garbage: the last trusted hop', () => {
		const of = createClientAddress(['127.0.0.1', '10.0.0.0/8']);
		expect(of(req('127.0.0.1'))).toBe('127.0.0.1');
		expect(of(req('127.0.0.1', '10.0.0.5'))).toBe('10.0.0.5');
		expect(of(req('127.0.0.1', 'unknown, 10.0.0.5'))).toBe('10.0.0.5');
		expect(of(req('127.0.0.1', 'not-an-address'))).toBe('127.0.0.1');
	});

	it('refuses, in words, what is no address or CIDR', () => {
		for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.0/x', '1.2.3.4/8/9', 'fd00::/129', '']) {
			expect(() => parseTrustedProxies([bad]), bad).toThrow(
				/--trust-proxy: .* is not an address or CIDR/
			);
		}
		expect(() => parseTrustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::1'])).not.toThrow();
	});
});

describe('the key of a per-client limit', () => {
	it('is an IPv4 address as it is, and an IPv6 address by its /64', () => {
		expect(limitKey('192.0.2.7')).toBe('192.0.2.7');
		expect(limitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
		expect(limitKey('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
		expect(limitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
		expect(limitKey('::1')).toBe('0:0:0:0::/64');
		expect(limitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
		expect(limitKey('64:ff9b::192.0.2.7')).toBe('64:ff9b:0:0::/64');
		// Two addresses of one subscriber's block share a key; another block does not.
		expect(limitKey('2001:db8:1:2::a')).toBe(limitKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
		expect(limitKey('2001:db8:1:3::a')).not.toBe(limitKey('2001:db8:1:2::a'));
	});
});
