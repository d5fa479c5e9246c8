import { replaceState } from '$app/navigation';
import { page } from '$app/state';
import { HalClient } from '$lib/api/hal-client';
import { t } from '$lib/i18n/i18n.svelte';
import { joinDevice, readJoinedDevice, readsOpenToAnyone } from '$lib/sync/devices';
import { serviceUrl } from '$lib/sync/service-address';
import {
	keepSpectatorLink,
	readSpectatorLink,
	spectatorLinkOf,
	type SpectatorLink
} from '../view/spectators';

/**
 * How a big screen reads its ring, and what it gives spectators ($lib/ui/view/spectators): whether
 * the service lets anyone read, and the viewer link the secretary opened the screen with (kept on
 * the device and taken off the address bar). Opened with that link where only joined devices
 * read, a screen that never joined joins with it as a viewer (one of its uses); a joined device
 * keeps its own role.
 */
export class BoardAccess {
	readsOpen = $state<boolean | null>(null);
	link = $state<SpectatorLink | null>(null);
	/** This screen may read (or it is known it cannot): only then does it look for what is missing. */
	checked = $state(false);

	/** Call once the page is mounted; `screenName` names the screen if it joins. */
	async check(screenName: () => string): Promise<void> {
		try {
			const given = spectatorLinkOf(location.hash);
			if (given) {
				this.link = given;
				await keepSpectatorLink(given).catch(() => undefined);
				// Kept on this device, and off the address bar (a screen in public view). After an
				// await: the router takes no replaceState while the first page mounts.
				replaceState(location.pathname, page.state);
			} else {
				this.link = await readSpectatorLink().catch(() => null);
			}
			const service = await serviceUrl(location.origin);
			this.readsOpen = await readsOpenToAnyone(service);
			if (this.readsOpen === false && given && !(await readJoinedDevice().catch(() => null))) {
				const name = t('spectators.screenName', { ring: screenName() });
				await joinDevice(new HalClient({ serviceUrl: service }), given.token, name).catch(
					() => undefined
				);
			}
		} finally {
			this.checked = true;
		}
	}
}
