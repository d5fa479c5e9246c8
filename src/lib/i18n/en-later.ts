// English words of the screens a first visit does not show, loaded by those screens
// (i18n.loadLater), so the first screen does not carry them. Czech has them in cs.ts.
export const enLater = {
	cold: {
		listing: 'Looking for it on the results service…',
		searching: 'Looking for it in {{name}} ({{at}} of {{of}})…',
		loading: 'Loading {{name}} onto this device…',
		loadingRuns: 'Loading {{name}} onto this device: {{done}} of {{total}} runs',
		offline_competition:
			'This phone is offline, and this competition is not on it yet. Open it from the list once online.',
		offline_run:
			'This phone is offline, and this run is not on it yet. Open its competition from the list once online.',
		offline_dogRun:
			'This phone is offline, and this dog run is not on it yet. Open its competition from the list once online.',
		notFound_competition: 'The results service has no competition at this address.',
		notFound_run: 'The results service has no run at this address.',
		notFound_dogRun: 'The results service has no dog run at this address.',
		notFoundNear_run:
			'This run is not in the {{looked}} competitions nearest today (of {{listed}} on the service). Open its competition from the list.',
		notFoundNear_dogRun:
			'This dog run is not in the {{looked}} competitions nearest today (of {{listed}} on the service). Open its competition from the list.',
		failed: 'It could not be loaded: {{reason}}',
		retry: 'Try again'
	}
};
