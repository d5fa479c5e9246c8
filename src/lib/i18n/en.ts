// The English message catalogue: every string the UI shows. Czech mirrors these keys (cs.ts).
export const en = {
	app: {
		name: 'Ringside',
		online: 'Online',
		offline: 'Offline',
		updateAvailable: 'A new version of Ringside is ready.',
		reload: 'Reload',
		skipToContent: 'Skip to content'
	},
	nav: {
		competitions: 'Competitions',
		settings: 'Settings',
		sync: 'Sync',
		back: 'Back'
	},
	competitions: {
		title: 'Competitions',
		loading: 'Loading competitions…',
		empty: 'No competitions found.',
		dates: '{{from}} – {{to}}',
		state_NEW: 'New',
		state_IN_PROGRESS: 'In progress',
		stateOther: '{{state}}',
		showing: 'Showing {{from}}–{{to}} of {{total}}',
		previous: 'Previous',
		next: 'Next',
		retry: 'Try again'
	},
	errors: {
		network: 'The results service cannot be reached. Check the signal or the service address.',
		timeout: 'The results service did not answer in time.',
		aborted: 'Cancelled.',
		http: 'The results service answered with an error ({{status}}).',
		httpWithMessage: 'The results service refused: {{message}} ({{status}})',
		'not-json':
			'The service answered with something that is not results data (a web page?). Check the service address.',
		'invalid-json': 'The service sent an incomplete or damaged answer.',
		'invalid-shape': 'The service sent data Ringside does not understand ({{detail}}).',
		'missing-link': 'The service’s answer is missing a link Ringside needs ({{detail}}).',
		'foreign-origin': 'The service pointed to another address; Ringside did not follow it.',
		'bad-address': 'The service address is not a valid http(s) address.',
		unknown: 'Something went wrong: {{detail}}'
	}
};

export type Messages = typeof en;
