// The "Trust this event" page (`--tls local`), served over plain HTTP since a phone that does not
// trust the event's CA yet cannot open anything over HTTPS: the CA for each kind of phone, the
// steps in words with a sketch of the screen each happens on, the CA's fingerprint to compare
// with the laptop's, and a check (a request to the HTTPS address) that leads on to the app. Every
// value is escaped; the script and styles are files of their own under a strict CSP.
import type { TrustCa } from './trust.ts';
import { CA_FILE, PROFILE_FILE, TRUST_PATH } from './trust.ts';

const html = (s: string): string =>
	s
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&#39;');

/** A sketch of a settings screen: its title and rows, the one to tap marked. */
function screen(title: string, rows: string[], tap: number): string {
	const items = rows
		.map((r, i) => `<li${i === tap ? ' class="tap"' : ''}>${html(r)}${i === tap ? ' ◀' : ''}</li>`)
		.join('');
	return `<figure class="screen" aria-hidden="true"><div class="bar">${html(title)}</div><ul>${items}</ul></figure>`;
}

export function trustPageHtml(p: { ca: TrustCa; secureOrigin: string; next: string }): string {
	const ca = html(p.ca.name);
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Trust this event · Ringside</title>
<link rel="stylesheet" href="${TRUST_PATH}/trust.css">
<script src="${TRUST_PATH}/trust.js" defer></script>
</head>
<body>
<main data-secure="${html(p.secureOrigin)}" data-next="${html(p.next)}">
<h1>Trust this event</h1>
<p class="lead">Ringside at this event runs on the ring laptop. Install the event's certificate once on this phone: then Ringside opens securely, installs, and keeps working with no signal.</p>
<section id="status" class="status checking" role="status" aria-live="polite">
<p id="status-text">Checking whether this phone trusts the event…</p>
<a id="open" class="button primary" hidden href="${html(p.secureOrigin + p.next)}">Open Ringside</a>
<button id="again" class="button" type="button" hidden>Check again</button>
</section>

<details id="android" class="phone">
<summary>Android (Chrome, Samsung Internet)</summary>
<ol>
<li><a class="button" href="${TRUST_PATH}/${CA_FILE}" download>Download the certificate</a></li>
<li>Open <b>Settings</b> and search for <b>CA certificate</b> (or: Security and privacy › More security settings › Encryption and credentials › Install a certificate › <b>CA certificate</b>). Tap <b>Install anyway</b>.
${screen('Install a certificate', ['CA certificate', 'VPN and app user certificate', 'Wi-Fi certificate'], 0)}</li>
<li>Pick <b>${CA_FILE}</b> from Downloads and confirm with your screen lock.</li>
<li>Come back here and tap <b>Check again</b>.</li>
</ol>
</details>

<details id="ios" class="phone">
<summary>iPhone and iPad (in Safari)</summary>
<ol>
<li><a class="button" href="${TRUST_PATH}/${PROFILE_FILE}">Download the profile</a> and tap <b>Allow</b>, then <b>Close</b>.</li>
<li>Open <b>Settings</b>, tap <b>Profile Downloaded</b> at the top (or General › VPN and Device Management), then <b>Install</b> three times.
${screen('Settings', ['Profile Downloaded', 'Wi-Fi', 'General'], 0)}</li>
<li>Settings › General › About › <b>Certificate Trust Settings</b>: switch on <b>${ca}</b>, then <b>Continue</b>.
${screen('Certificate Trust Settings', [`${p.ca.name}  ◯→●`], 0)}</li>
<li>Back in Safari, tap <b>Check again</b>. Then Share › <b>Add to Home Screen</b>: only then does iOS keep Ringside's data.</li>
</ol>
</details>

<details id="firefox" class="phone">
<summary>Firefox</summary>
<ol>
<li><a class="button" href="${TRUST_PATH}/${CA_FILE}" download>Download the certificate</a></li>
<li><b>On Android:</b> Firefox keeps its own list. Settings › About Firefox, tap the logo five times; back in Settings › Secret settings, switch on <b>Use third party CA certificates</b>; then follow the Android steps above.
${screen('Secret settings', ['Use third party CA certificates  ◯→●'], 0)}</li>
<li><b>On a computer:</b> Settings › Privacy and Security › Certificates › View Certificates › Authorities › <b>Import</b>, pick the file, tick <b>Trust this CA to identify websites</b>.</li>
<li>Come back here and tap <b>Check again</b>.</li>
</ol>
</details>

<section class="facts">
<h2>Is it the event's?</h2>
<p>Its name is <b>${ca}</b>. The ring laptop shows its fingerprint when it starts; it must be the same:</p>
<p class="fingerprint">${html(p.ca.fingerprint)}</p>
<p>It is valid only for the ring laptop's own names and local network addresses, never for other sites. Remove it after the event in the same settings.</p>
</section>
</main>
</body>
</html>
`;
}

export const TRUST_CSS = `:root{color-scheme:light dark;--fg:#111;--bg:#fff;--muted:#444;--line:#888;--ok:#0a6b2d;--no:#a40000;--accent:#0b4fb3}
@media (prefers-color-scheme:dark){:root{--fg:#f4f4f4;--bg:#111;--muted:#ccc;--line:#777;--ok:#7ee2a0;--no:#ff9b9b;--accent:#8fb8ff}}
*{box-sizing:border-box}body{margin:0;font:18px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:40rem;margin:0 auto;padding:1rem}h1{font-size:1.7rem;margin:.2rem 0 .6rem}h2{font-size:1.2rem}
.lead{margin:0 0 1rem}.status{border:3px solid var(--line);border-radius:12px;padding:.8rem 1rem;margin:0 0 1rem}
.status p{margin:0 0 .6rem;font-weight:700}.status.ok{border-color:var(--ok)}.status.ok p{color:var(--ok)}
.status.no{border-color:var(--no)}.status.no p{color:var(--no)}
.button{display:inline-block;min-height:3rem;padding:.7rem 1.1rem;border:2px solid var(--accent);border-radius:10px;color:var(--accent);background:transparent;font:inherit;font-weight:700;text-decoration:none;cursor:pointer}
.button.primary{background:var(--accent);color:var(--bg)}.button[hidden]{display:none}
details.phone{border:2px solid var(--line);border-radius:12px;margin:0 0 .8rem;padding:0 1rem}
summary{min-height:3rem;padding:.7rem 0;font-weight:700;font-size:1.1rem;cursor:pointer}
ol{padding-left:1.3rem}li{margin:0 0 .9rem}
.screen{margin:.5rem 0 0;max-width:17rem;border:2px solid var(--line);border-radius:14px;overflow:hidden;font-size:.9rem}
.screen .bar{padding:.4rem .7rem;font-weight:700;border-bottom:1px solid var(--line)}
.screen ul{list-style:none;margin:0;padding:0}.screen li{margin:0;padding:.45rem .7rem;border-bottom:1px solid var(--line)}
.screen li:last-child{border-bottom:0}.screen li.tap{outline:3px solid var(--accent);outline-offset:-3px;font-weight:700}
.fingerprint{font-family:ui-monospace,monospace;font-size:.85rem;word-break:break-all}
.facts{color:var(--muted)}
`;

/**
 * The check: a request to the HTTPS address succeeds only where the phone trusts the CA. Opened
 * on the way to a page (`next` other than /), a phone that trusts goes on to it at once.
 */
export const TRUST_JS = `'use strict';
(function () {
	var main = document.querySelector('main');
	var secure = main.getAttribute('data-secure');
	var next = main.getAttribute('data-next') || '/';
	var status = document.getElementById('status');
	var text = document.getElementById('status-text');
	var open = document.getElementById('open');
	var again = document.getElementById('again');
	var ua = navigator.userAgent;
	var phone = /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1)
		? 'ios' : /Firefox/.test(ua) ? 'firefox' : /Android/.test(ua) ? 'android' : null;
	function show(state, words) {
		status.className = 'status ' + state;
		text.textContent = words;
		open.hidden = state !== 'ok';
		again.hidden = state === 'ok' || state === 'checking';
	}
	function check(first) {
		show('checking', 'Checking whether this phone trusts the event…');
		var done = false;
		var timer = setTimeout(function () { if (!done) { done = true; fail(); } }, 8000);
		function fail() {
			show('no', 'Not yet: this phone does not trust the event. Follow the steps for your phone below, then tap Check again.');
			var d = phone && document.getElementById(phone);
			if (d) d.open = true;
		}
		fetch(secure + '/trust/ok', { cache: 'no-store' }).then(function (r) {
			if (done) return;
			done = true;
			clearTimeout(timer);
			if (r.status !== 204) return fail();
			show('ok', '✓ This phone trusts the event.');
			open.href = secure + next + location.hash;
			if (first && next !== '/') location.replace(open.href);
		}, function () {
			if (done) return;
			done = true;
			clearTimeout(timer);
			fail();
		});
	}
	again.addEventListener('click', function () { check(false); });
	check(true);
})();
`;
