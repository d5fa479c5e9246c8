import type { Driver, Engine } from '../driver';
import { ChromiumDriver } from './chromium';
import { FirefoxDriver } from './firefox';
import { WebKitDriver } from './webkit';

/** A fresh browser of `engine` (its own profile), ready to open the app. */
export function launchDriver(engine: Engine): Promise<Driver> {
	switch (engine) {
		case 'chromium':
			return ChromiumDriver.launch();
		case 'webkit':
			return WebKitDriver.launch();
		case 'firefox':
			return FirefoxDriver.launch();
	}
}
