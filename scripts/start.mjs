// `npm start`: build the app when the build is missing or older than its sources, then run the
// embedded results service with the app on one origin. Extra arguments go to the service
// (`npm start -- --port 8080 --host 0.0.0.0`, `npm start -- --upstream https://results.example`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const buildMarker = join(root, 'build', 'index.html');
const sources = ['src', 'static', 'svelte.config.js', 'vite.config.ts', 'package.json'];

function newestMtime(path) {
	if (!existsSync(path)) return 0;
	const st = statSync(path);
	if (!st.isDirectory()) return st.mtimeMs;
	let newest = st.mtimeMs;
	for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
	return newest;
}

const built = existsSync(buildMarker) ? statSync(buildMarker).mtimeMs : 0;
const sourceTime = Math.max(...sources.map((s) => newestMtime(join(root, s))));
if (built < sourceTime) {
	console.log(
		built ? 'Sources changed since the last build: building the app…' : 'Building the app…'
	);
	const result = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
		cwd: root,
		stdio: 'inherit'
	});
	if (result.status !== 0) process.exit(result.status ?? 1);
}

const child = spawn('npx', ['tsx', 'server/main.ts', '--app', 'build', ...process.argv.slice(2)], {
	cwd: root,
	stdio: 'inherit'
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
