// English words of the screens a first visit does not show, loaded by those screens
// (i18n.loadLater), so the first screen does not carry them. Czech has them in cs.ts.
export const enLater = {
	combined: {
		title: 'Combined results',
		heading: 'Combined results: {{runs}}',
		choose: 'Combine with other runs',
		chooseHelp:
			'Tap the runs to rank together with this one, for example the agility and the jumping of one size and level.',
		sameClass: 'Same size and level',
		otherRuns: 'Other runs of this competition',
		noCandidates: 'No other run of this competition is on this device.',
		thisRunOnly: 'This run only',
		runOption: '{{date}} · {{time}} · {{ring}}',
		runMeta: '{{run}}: {{date}} · {{time}} · {{ring}} · {{judge}}',
		rule: 'Ranked by the sum of penalties, then the sum of times. Disqualified or absent in a run: not ranked.',
		incomplete: '{{done}} of {{total}} teams are settled; results are missing in a run.',
		complete: 'Every team has a result in every run.',
		authority:
			'Combined on this device: the results service has no combined list. The runs’ lists there are the official ones.',
		group_eliminated: 'Disqualified in a run',
		group_absent: 'Absent from a run',
		group_missing: 'Not in every run',
		group_pending: 'Not complete yet',
		notEntered: 'not entered',
		inAll: 'In all',
		col_penalties: 'Penalties',
		col_time: 'Time (s)',
		short_penalties: 'Pen.',
		col_runPenalties: '{{run}}: penalties',
		col_runTime: '{{run}}: time (s)',
		col_sumPenalties: 'Penalties in all',
		col_sumTime: 'Time in all (s)',
		col_status: 'Note',
		choiceNotStored: 'Not on this device',
		choiceReading: 'Reading…',
		choiceFailed: 'Could not be read',
		notStored:
			'“{{run}}” is not on this device. Open it while online, or make the competition available offline.',
		unknownRun: 'Run {{id}} is not on this device. Open it while online.',
		reading: 'Reading “{{run}}” from the results service…',
		readFailed: '“{{run}}” could not be read: {{reason}}'
	},
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
	},
	follow: {
		title: 'Follow {{ring}}',
		live: 'Live',
		mine: 'Your dogs',
		mineHelp:
			'Tap ☆ beside a dog to follow it here. Your dogs are kept on this phone only; nothing is sent.',
		mark: 'Follow {{dog}}',
		unmark: 'Stop following {{dog}}',
		atStart: 'At the start now · {{run}}',
		toGate: 'To the gate · {{run}}',
		before_one: '1 dog before it · {{run}}',
		before_other: '{{count}} dogs before it · {{run}}',
		done: 'Done · {{run}}',
		elsewhere: 'Not on this ring’s list on this phone.',
		find: 'Find a dog',
		findPlaceholder: 'Dog or handler',
		findNone: 'No dog of this ring matches.',
		findMore: 'Type more to narrow it down.',
		needsJoin:
			'This results service lets only joined phones read. Scan the code on the big screen at the ring.'
	},
	spectators: {
		follow: 'Follow {{ring}} on your phone',
		title: 'Spectators’ link',
		help: 'One link for every spectator’s phone: read only, up to 1,000 phones, for 24 hours. Open the big screen with it and the screen shows its code for spectators to scan.',
		openHelp:
			'Anyone on the event network may read: spectators need no link, the big screen shows its address.',
		make: 'Make the spectators’ link',
		board: '{{ring}}: big screen with the spectators’ code',
		boardAddress: 'Open on the big screen (or scan with it):',
		screenName: 'Big screen · {{ring}}',
		loopback:
			'This address works on this computer only: open the big screen by the computer’s network address for phones to reach it.'
	}
};
