import { i18n } from '$lib/i18n/i18n.svelte';

// The gate screen speaks with the later screens' words: in before it renders.
export const load = () => i18n.loadLater();
