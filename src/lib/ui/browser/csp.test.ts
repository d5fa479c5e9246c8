import { describe, expect, it } from 'vitest';
import { connectSources, policyAllows, watchConnectViolations } from './csp';

const SELF = 'http://127.0.0.1:4173';
/** As Kit writes it for a build with RINGSIDE_CONNECT_SRC="http://127.0.0.1:*". */
const BUILT =
	"default-src 'self'; worker-src 'self'; connect-src 'self' http://127.0.0.1:*; font-src 'self'; object-src 'none'";

describe('connectSources', () => {
	it('reads connect-src, else default-src, else no restriction', () => {
		expect(connectSources(BUILT)).toEqual(["'self'", 'http://127.0.0.1:*']);
		expect(connectSources("default-src 'self' https://a.example")).toEqual([
			"'self'",
			'https://a.example'
		]);
		expect(connectSources("img-src 'self'")).toBeNull();
		expect(connectSources("connect-src 'none'; connect-src *")).toEqual(["'none'"]);
	});
});

describe('policyAllows', () => {
	it.each<[string | null, string, boolean]>([
		[BUILT, `${SELF}/api/v1/competitions`, true],
		[BUILT, 'http://127.0.0.1:9999/api/v1/competitions', true],
		[BUILT, 'http://localhost:4173/api/v1/competitions', false],
		[BUILT, 'https://results.example.org/api/v1/competitions', false],
		["connect-src 'self'", 'http://127.0.0.1:9999/api', false],
		["connect-src 'self'", `${SELF}/api`, true],
		// 'self' over a secure scheme on the same host
		["connect-src 'self'", 'https://127.0.0.1:4173/api', true],
		["connect-src 'none'", `${SELF}/api`, false],
		['connect-src https://results.example.org', 'https://results.example.org/api/v1/x', true],
		['connect-src https://results.example.org', 'http://results.example.org/api/v1/x', false],
		['connect-src https://results.example.org', 'https://results.example.org:8443/api', false],
		['connect-src http://results.example.org', 'https://results.example.org/api', true],
		['connect-src results.example.org', 'http://results.example.org/api', true],
		['connect-src results.example.org', 'https://results.example.org/api', true],
		['connect-src *.example.org', 'https://results.example.org/api', true],
		['connect-src *.example.org', 'https://example.org/api', false],
		['connect-src *.example.org', 'https://results.example.org.evil.com/api', false],
		['connect-src https:', 'https://anywhere.example/api', true],
		['connect-src https:', 'http://anywhere.example/api', false],
		['connect-src *', 'https://anywhere.example/api', true],
		['connect-src https://svc.example/results/', 'https://svc.example/results/api/v1/x', true],
		['connect-src https://svc.example/results/', 'https://svc.example/other/api', false],
		[
			'connect-src https://svc.example/api/v1/competitions',
			'https://svc.example/api/v1/competitions',
			true
		],
		[
			'connect-src https://svc.example/api/v1/competitions',
			'https://svc.example/api/v1/other',
			false
		],
		["connect-src 'self' 'sha256-abc' 'unsafe-inline'", 'https://other.example/', false],
		["default-src 'self'", 'https://other.example/', false],
		["img-src 'self'", 'https://other.example/', true],
		[null, 'https://other.example/', true],
		// A path that is not valid percent-encoding is compared as written, never thrown on.
		['connect-src https://svc.example/results/', 'https://svc.example/results/%zz', true],
		['connect-src https://svc.example/results/', 'https://svc.example/other/%zz', false]
	])('%s: %s allowed: %s', (policy, url, allowed) => {
		expect(policyAllows(policy, url, SELF)).toBe(allowed);
	});
});

describe('watchConnectViolations', () => {
	const violation = (directive: string, blockedURI: string) =>
		Object.assign(new Event('securitypolicyviolation'), {
			effectiveDirective: directive,
			blockedURI
		});

	it('tells a fetch the policy refused from one that failed on the network', async () => {
		const target = new EventTarget();
		const watch = watchConnectViolations(target);
		target.dispatchEvent(violation('connect-src', 'https://results.example.org'));
		target.dispatchEvent(violation('img-src', 'https://images.example.org/a.png'));
		expect(await watch.blocked('https://results.example.org/api/v1/competitions')).toBe(true);
		expect(await watch.blocked('https://images.example.org/api')).toBe(false);
		expect(await watch.blocked('https://down.example.org/api')).toBe(false);
		watch.stop();
		target.dispatchEvent(violation('connect-src', 'https://down.example.org/api'));
		expect(await watch.blocked('https://down.example.org/api')).toBe(false);
	});
});
