import { describe, expect, it } from 'vitest';
import { joinTokenOf } from '$lib/sync/devices';
import {
	boardWithLink,
	isLoopback,
	shortAddress,
	spectatorLinkOf,
	spectatorsAddress
} from './spectators';

const link = { token: 'AbC-12_xyzXYZ0123456', until: 1_800_000_000_000 };

describe('the spectators’ code on the big screen', () => {
	it('leads straight to the follow view where anyone may read', () => {
		expect(
			spectatorsAddress('http://10.0.0.2:4173', 1, 2, { readsOpen: true, link: null, now: 0 })
		).toBe('http://10.0.0.2:4173/follow/1/2');
	});

	it('leads through the viewer link where only joined phones read, then to the follow view', () => {
		const address = spectatorsAddress('http://10.0.0.2:4173', 1, 2, {
			readsOpen: false,
			link,
			now: 0
		})!;
		const url = new URL(address);
		expect(url.pathname).toBe('/join');
		// The join page reads the token as from any join link, and where to go next.
		expect(joinTokenOf(url.hash)).toBe(link.token);
		expect(new URLSearchParams(url.hash.slice(1)).get('then')).toBe('/follow/1/2');
	});

	it('shows no code without a way in: reads closed and no link, or the link expired', () => {
		const access = { readsOpen: false, now: link.until };
		expect(spectatorsAddress('http://h', 1, 2, { ...access, link: null })).toBeNull();
		expect(spectatorsAddress('http://h', 1, 2, { ...access, link })).toBeNull();
		// Not known yet (no answer): the link still serves.
		expect(spectatorsAddress('http://h', 1, 2, { readsOpen: null, link, now: 0 })).not.toBeNull();
	});

	it('takes the link from the big screen’s address, and nothing malformed', () => {
		const board = new URL(boardWithLink('http://10.0.0.2:4173', 1, 2, link));
		expect(board.pathname).toBe('/board/1/2');
		expect(spectatorLinkOf(board.hash)).toEqual(link);
		expect(spectatorLinkOf('#spectators=<script>&until=1')).toBeNull();
		expect(spectatorLinkOf('#until=1')).toBeNull();
		expect(spectatorLinkOf('')).toBeNull();
	});

	it('writes the address short, and knows a loopback name', () => {
		expect(shortAddress('http://10.0.0.2:4173/follow/1/2')).toBe('10.0.0.2:4173/follow/1/2');
		expect(isLoopback('127.0.0.1')).toBe(true);
		expect(isLoopback('localhost')).toBe(true);
		expect(isLoopback('10.0.0.2')).toBe(false);
	});
});
