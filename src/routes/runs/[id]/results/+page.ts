import { i18n } from '$lib/i18n/i18n.svelte';

// The combined results' words are not on the first screen (i18n.loadLater).
export const load = () => i18n.loadLater();
