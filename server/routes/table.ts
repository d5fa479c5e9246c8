// The local API's route table: which route a path names (with its parameters), the methods a
// route answers, and what a preflight or a PUT's put_log row needs of it before it is handled.
import type { PutInfo } from '../middleware/exchange.ts';
import { storedId } from '../validation.ts';
import { changesRoute } from './changes.ts';
import { checkInRoutes } from './check-in.ts';
import { competitionRoutes } from './competitions.ts';
import { deviceRoutes } from './devices.ts';
import { dogRunRoutes } from './dog-runs.ts';
import { publicationRoute } from './publication.ts';
import { handles, type Method, type Route } from './route.ts';
import { runRoutes } from './runs.ts';
import { timerRoute } from './timer.ts';

const ROUTES: Route[] = [
	...competitionRoutes,
	publicationRoute,
	...runRoutes,
	...dogRunRoutes,
	...checkInRoutes,
	...deviceRoutes
];

/** The routes of a service: the push channel's streams only with `push`, the timers' with `timers`. */
export function routesOf(push: boolean, timers: boolean): Route[] {
	return [...ROUTES, ...(push ? [changesRoute] : []), ...(timers ? [timerRoute] : [])];
}

/** Event streams: not reads of the read budget, not on a snapshot. */
export const isStream = (route: Route): boolean => route === changesRoute || route === timerRoute;

/** A route a path names, and the path's parameters. */
export interface Found {
	route: Route;
	params: string[];
}

export function match(pathname: string, routes: Route[] = ROUTES): Found | null {
	for (const route of routes) {
		const m = route.re.exec(pathname);
		if (m) return { route, params: m.slice(1) };
	}
	return null;
}

const METHODS: Method[] = ['GET', 'PUT', 'POST', 'DELETE'];

export const methodsOf = (route: Route): string[] => METHODS.filter((m) => handles(route, m));

export const allowHeader = (methods: string[]): string =>
	[...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');

/**
 * The methods a CORS preflight allows on a path: those of its route where it has POST or DELETE
 * (the device endpoints), else GET and PUT, as always.
 */
export function preflightMethods(pathname: string): string {
	const found = match(pathname);
	const methods = found ? methodsOf(found.route) : [];
	if (!methods.includes('POST') && !methods.includes('DELETE')) return 'GET, PUT, OPTIONS';
	return [...methods, 'OPTIONS'].join(', ');
}

/** Resource kind and id of a PUT path, for put_log rows of requests that are not handled. */
export function putTarget(pathname: string): PutInfo {
	const info: PutInfo = { kind: null, id: null, body: null };
	const found = match(pathname);
	if (!found) return info;
	info.kind = found.route.kind ?? null;
	if (info.kind) info.id = storedId(found.params[0] ?? '');
	return info;
}
