// A client-only single-page app: every screen renders from IndexedDB in the browser.
export const ssr = false;
export const prerender = false;
