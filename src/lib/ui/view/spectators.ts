/**
 * How spectators get onto a ring's view from the big screen. Where the service lets anyone read
 * (open, or `--open-reads`), the big screen's code is the follow view's address itself. Where it
 * lets only joined phones read, the secretary makes one viewer link for every spectator on the
 * Devices screen (`uses` up to 1000, a day) and opens the big screen with it:
 * `/board/<c>/<r>#spectators=<token>&until=<ms>`. The big screen keeps the link (this device's
 * settings: it is on a public screen anyway) and its code is then the join address, which brings
 * a spectator's phone to the follow view once joined (`/join#t=<token>&then=/follow/<c>/<r>`).
 * The token stays in fragments: no server logs it.
 */
import { getSetting, setSetting } from '$lib/db/settings-store';

export const SETTING_SPECTATOR_LINK = 'spectatorLink';

/** The viewer link a big screen was opened with: its token, and until when it works. */
export interface SpectatorLink {
	token: string;
	/** Epoch ms. */
	until: number;
}

export const followPath = (competitionId: number, ringId: number): string =>
	`/follow/${competitionId}/${ringId}`;

/** The big screen's address that carries the spectators' link (made on the Devices screen). */
export function boardWithLink(
	origin: string,
	competitionId: number,
	ringId: number,
	link: SpectatorLink
): string {
	const hash = new URLSearchParams({ spectators: link.token, until: String(link.until) });
	return `${origin}/board/${competitionId}/${ringId}#${hash}`;
}

/** The spectators' link in a big screen's fragment, or null. */
export function spectatorLinkOf(hash: string): SpectatorLink | null {
	const params = new URLSearchParams(hash.replace(/^#/, ''));
	const token = params.get('spectators');
	const until = Number(params.get('until'));
	if (!token || !/^[A-Za-z0-9_-]{8,200}$/.test(token) || !Number.isFinite(until)) return null;
	return { token, until };
}

/** Where a spectator's code leads: the follow view, through the join link when reads need one. */
export function spectatorsAddress(
	origin: string,
	competitionId: number,
	ringId: number,
	access: { readsOpen: boolean | null; link: SpectatorLink | null; now: number }
): string | null {
	const path = followPath(competitionId, ringId);
	if (access.readsOpen === true) return `${origin}${path}`;
	const { link } = access;
	if (!link || link.until <= access.now) return null;
	return `${origin}/join#${new URLSearchParams({ t: link.token, then: path })}`;
}

/** A shareable address without its scheme, as typed into a browser ("10.0.0.2:4173/follow/1/2"). */
export const shortAddress = (url: string): string => url.replace(/^https?:\/\//, '');

/** Names this device cannot be reached by from another one (a big screen opened on the laptop). */
export const isLoopback = (hostname: string): boolean =>
	hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);

export async function readSpectatorLink(): Promise<SpectatorLink | null> {
	const value = await getSetting<SpectatorLink>(SETTING_SPECTATOR_LINK);
	return value && typeof value.token === 'string' && typeof value.until === 'number' ? value : null;
}

export async function keepSpectatorLink(link: SpectatorLink): Promise<void> {
	await setSetting(SETTING_SPECTATOR_LINK, link);
}
