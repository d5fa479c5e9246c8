import type { Driver, Engine, LaunchOptions } from '../driver';
import { trustInSystemStore } from '../../support/venue';
import { ChromiumDriver } from './chromium';
import { FirefoxDriver } from './firefox';
import { WebKitDriver } from './webkit';

/** A fresh browser of `engine` (its own profile), ready to open the app. */
export function launchDriver(engine: Engine, options: LaunchOptions = {}): Promise<Driver> {
	switch (engine) {
		case 'chromium':
			return ChromiumDriver.launch(options);
		case 'webkit':
			// WebKitGTK reads the system store (GnuTLS): nothing per profile.
			if (options.venue) trustInSystemStore();
			return WebKitDriver.launch();
		case 'firefox':
			return FirefoxDriver.launch(options);
	}
}
