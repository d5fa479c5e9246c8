// What the service answers under /trust, and everything it answers over plain HTTP once it
// serves HTTPS.
//
//   /trust                      "Trust this event" (--tls local): the CA for each kind of phone,
//                               the steps, and a check that leads on to the app over HTTPS
//   /trust/ringside-event-ca.crt        the CA, DER (Android, Firefox)
//   /trust/ringside-event.mobileconfig  the CA in a configuration profile (iPhone, iPad)
//   /trust/info.json            the secure address and the trust page, for the app's warning on
//                               an insecure address; 404 when the service serves no HTTPS
//   /trust/ok                   204 over HTTPS with CORS open: the trust page's check
//
// Over plain HTTP everything else is redirected to the same host's HTTPS address; with the
// event's own CA a page (a navigation) goes to the trust page first, which goes on to HTTPS at
// once on a phone that trusts the CA and explains the steps on one that does not (a redirect
// straight to HTTPS would show that phone the browser's certificate error instead).
import { createHash } from 'node:crypto';
import { HttpError } from '../http/errors.ts';
import { send, type Exchange } from '../middleware/exchange.ts';
import { hostName } from '../middleware/host-check.ts';
import { TRUST_CSS, TRUST_JS, trustPageHtml } from './trust-page.ts';

/** The event's CA as the trust page offers it (`--tls local`). */
export interface TrustCa {
	name: string;
	der: Buffer;
	fingerprint: string;
}

export interface TrustRoutes {
	/** Answers a request under /trust on either side; false for any other path. */
	handle(ex: Exchange, secure: boolean): boolean;
	/** The plain-HTTP side's answer to anything but /trust. */
	redirect(ex: Exchange): void;
}

export interface TrustOptions {
	/** The HTTPS port; null: no HTTPS (then /trust answers 404). */
	httpsPort: () => number | null;
	/** The plain-HTTP port phones reach the trust page on (the HTTPS one, or --http-port). */
	httpPort: () => number | null;
	/** The CA (--tls local); null with the organiser's own certificate. */
	ca: () => TrustCa | null;
}

export const TRUST_PATH = '/trust';
export const CA_FILE = 'ringside-event-ca.crt';
export const PROFILE_FILE = 'ringside-event.mobileconfig';

/** `host:port` as a URL writes it (the port left out when it is the scheme's own). */
function authority(host: string, port: number, scheme: 'http' | 'https'): string {
	const h = host.includes(':') ? `[${host}]` : host;
	return (scheme === 'https' && port === 443) || (scheme === 'http' && port === 80)
		? h
		: `${h}:${port}`;
}

/** The host a request named (checked against the allow-list before this). */
const requestHost = (ex: Exchange): string => hostName(ex.req.headers.host ?? '127.0.0.1');

/** Whether a request is a page being opened (not a script's or an image's request). */
function isNavigation(ex: Exchange): boolean {
	const method = ex.req.method ?? 'GET';
	if (method !== 'GET' && method !== 'HEAD') return false;
	const mode = ex.req.headers['sec-fetch-mode'];
	if (mode !== undefined) return mode === 'navigate';
	return (ex.req.headers.accept ?? '').includes('text/html');
}

/** A path and query of this origin to go on to after the trust page; else `/`. */
export function safeNext(raw: string | null): string {
	if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.includes('\\')) return '/';
	return raw.startsWith(TRUST_PATH) ? '/' : raw;
}

const uuidOf = (text: string): string => {
	const h = createHash('sha256').update(text).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`.toUpperCase();
};

const xml = (s: string): string =>
	s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * An unsigned configuration profile holding the CA (`com.apple.security.root`): Safari offers
 * to install it, and iOS then lists the CA under Certificate Trust Settings by its CommonName.
 * Its identifiers follow from the CA, so that downloading it again replaces, not duplicates.
 */
export function mobileconfig(ca: TrustCa): string {
	const id = `org.ringside.event-ca.${ca.fingerprint.replace(/:/g, '').slice(0, 16).toLowerCase()}`;
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>PayloadContent</key>
	<array>
		<dict>
			<key>PayloadCertificateFileName</key>
			<string>${CA_FILE}</string>
			<key>PayloadContent</key>
			<data>${ca.der.toString('base64')}</data>
			<key>PayloadDescription</key>
			<string>The certificate authority of this event's ring laptop</string>
			<key>PayloadDisplayName</key>
			<string>${xml(ca.name)}</string>
			<key>PayloadIdentifier</key>
			<string>${id}.certificate</string>
			<key>PayloadType</key>
			<string>com.apple.security.root</string>
			<key>PayloadUUID</key>
			<string>${uuidOf(`${id}.certificate`)}</string>
			<key>PayloadVersion</key>
			<integer>1</integer>
		</dict>
	</array>
	<key>PayloadDescription</key>
	<string>Lets this device open Ringside on the event's ring laptop securely, so that it works with no signal. Valid only for the laptop's own names and local network addresses.</string>
	<key>PayloadDisplayName</key>
	<string>Ringside: trust this event</string>
	<key>PayloadIdentifier</key>
	<string>${id}</string>
	<key>PayloadRemovalDisallowed</key>
	<false/>
	<key>PayloadType</key>
	<string>Configuration</string>
	<key>PayloadUUID</key>
	<string>${uuidOf(id)}</string>
	<key>PayloadVersion</key>
	<integer>1</integer>
</dict>
</plist>
`;
}

const answerBytes = (
	ex: Exchange,
	type: string,
	body: Buffer | string,
	headers: Record<string, string> = {}
): void => {
	const res = ex.res;
	ex.status = 200;
	res.statusCode = 200;
	res.setHeader('Content-Type', type);
	res.setHeader('Content-Length', Buffer.byteLength(body));
	res.setHeader('X-Content-Type-Options', 'nosniff');
	res.setHeader('Cache-Control', 'no-cache');
	for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
	res.end(ex.req.method === 'HEAD' ? undefined : body);
};

export function createTrustRoutes(o: TrustOptions): TrustRoutes {
	const origins = (ex: Exchange): { secure: string; trustPage: string | null } | null => {
		const https = o.httpsPort();
		if (https === null) return null;
		const host = requestHost(ex);
		const plain = o.httpPort();
		return {
			secure: `https://${authority(host, https, 'https')}`,
			trustPage:
				o.ca() && plain !== null ? `http://${authority(host, plain, 'http')}${TRUST_PATH}` : null
		};
	};

	const handle = (ex: Exchange, secure: boolean): boolean => {
		const p = ex.pathname;
		if (p !== TRUST_PATH && !p.startsWith(`${TRUST_PATH}/`)) return false;
		const method = ex.req.method ?? 'GET';
		if (method !== 'GET' && method !== 'HEAD') {
			throw new HttpError(405, `${method} is not allowed on ${p}`, { Allow: 'GET, HEAD' });
		}
		const at = origins(ex);
		if (!at)
			throw new HttpError(
				404,
				'This service serves no HTTPS (start it with --tls local or --tls-cert)'
			);
		const ca = o.ca();
		switch (p) {
			case `${TRUST_PATH}/info.json`:
				send(
					ex,
					200,
					JSON.stringify({ secureOrigin: at.secure, trustPage: at.trustPage }),
					'application/json'
				);
				return true;
			case `${TRUST_PATH}/ok`:
				if (!secure) throw new HttpError(404, 'Ask over HTTPS');
				ex.status = 204;
				ex.res.writeHead(204, {
					'Access-Control-Allow-Origin': '*',
					'Cache-Control': 'no-store'
				});
				ex.res.end();
				return true;
			case `${TRUST_PATH}/trust.js`:
				answerBytes(ex, 'text/javascript; charset=utf-8', TRUST_JS);
				return true;
			case `${TRUST_PATH}/trust.css`:
				answerBytes(ex, 'text/css; charset=utf-8', TRUST_CSS);
				return true;
		}
		if (!ca)
			throw new HttpError(
				404,
				'This service uses a certificate phones trust already: nothing to install'
			);
		switch (p) {
			case TRUST_PATH:
			case `${TRUST_PATH}/`: {
				const next = safeNext(new URLSearchParams(ex.search).get('next'));
				answerBytes(
					ex,
					'text/html; charset=utf-8',
					trustPageHtml({ ca, secureOrigin: at.secure, next }),
					{
						'Content-Security-Policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src ${at.secure}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
						'Referrer-Policy': 'no-referrer',
						'X-Frame-Options': 'DENY'
					}
				);
				return true;
			}
			case `${TRUST_PATH}/${CA_FILE}`:
				// Android's certificate installer and Firefox take a DER file of this type.
				answerBytes(ex, 'application/x-x509-ca-cert', ca.der, {
					'Content-Disposition': `attachment; filename="${CA_FILE}"`
				});
				return true;
			case `${TRUST_PATH}/${PROFILE_FILE}`:
				answerBytes(ex, 'application/x-apple-aspen-config', mobileconfig(ca), {
					'Content-Disposition': `attachment; filename="${PROFILE_FILE}"`
				});
				return true;
		}
		throw new HttpError(404, `No resource at ${p}`);
	};

	const redirect = (ex: Exchange): void => {
		const at = origins(ex);
		if (!at) throw new HttpError(404, `No resource at ${ex.pathname}`);
		const target = `${ex.pathname}${ex.search}`;
		const location =
			o.ca() && isNavigation(ex)
				? `${TRUST_PATH}?next=${encodeURIComponent(target)}`
				: `${at.secure}${target}`;
		ex.status = 307;
		// Temporary: the next event's laptop may serve this address otherwise.
		ex.res.writeHead(307, { Location: location, 'Cache-Control': 'no-store', 'Content-Length': 0 });
		ex.res.end();
	};

	return { handle, redirect };
}
