import type { Messages } from './en';

export const cs: Messages = {
	app: {
		name: 'Ringside',
		online: 'Online',
		offline: 'Offline',
		updateAvailable: 'Je připravena nová verze aplikace Ringside.',
		reload: 'Načíst znovu',
		skipToContent: 'Přejít na obsah'
	},
	nav: {
		competitions: 'Závody',
		settings: 'Nastavení',
		sync: 'Synchronizace',
		back: 'Zpět'
	},
	competitions: {
		title: 'Závody',
		loading: 'Načítám závody…',
		empty: 'Žádné závody nenalezeny.',
		dates: '{{from}} – {{to}}',
		state_NEW: 'Nový',
		state_IN_PROGRESS: 'Probíhá',
		stateOther: '{{state}}',
		showing: 'Zobrazeno {{from}}–{{to}} z {{total}}',
		previous: 'Předchozí',
		next: 'Další',
		retry: 'Zkusit znovu'
	},
	errors: {
		network: 'Výsledkový servis není dostupný. Zkontrolujte signál nebo adresu servisu.',
		timeout: 'Výsledkový servis neodpověděl včas.',
		aborted: 'Zrušeno.',
		http: 'Výsledkový servis odpověděl chybou ({{status}}).',
		httpWithMessage: 'Výsledkový servis odmítl: {{message}} ({{status}})',
		'not-json':
			'Servis neposlal data výsledků (možná webovou stránku?). Zkontrolujte adresu servisu.',
		'invalid-json': 'Servis poslal neúplnou nebo poškozenou odpověď.',
		'invalid-shape': 'Servis poslal data, kterým Ringside nerozumí ({{detail}}).',
		'missing-link': 'V odpovědi servisu chybí odkaz, který Ringside potřebuje ({{detail}}).',
		'foreign-origin': 'Servis odkázal na jinou adresu; Ringside ji nenásledoval.',
		'bad-address': 'Adresa servisu není platná adresa http(s).',
		unknown: 'Něco se pokazilo: {{detail}}'
	}
};
