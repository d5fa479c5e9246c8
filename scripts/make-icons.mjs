// Draws the app icons (a white agility hurdle on dark green) as PNG files without any image
// library: the icons are committed, this script is how they were made and how to remake them.
import { deflateSync } from 'node:zlib';
import { writeFileSync, mkdirSync } from 'node:fs';

const GREEN = [11, 61, 46];
const WHITE = [255, 255, 255];
const AMBER = [255, 196, 0];

function crc32(buf) {
	let c;
	let crc = 0xffffffff;
	for (let n = 0; n < buf.length; n++) {
		c = (crc ^ buf[n]) & 0xff;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		crc = (crc >>> 8) ^ c;
	}
	return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const td = Buffer.concat([Buffer.from(type), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(td));
	return Buffer.concat([len, td, crc]);
}

/** safe: fraction of the size kept clear at each edge (maskable icons need about 10 %). */
function draw(size, safe) {
	const px = Buffer.alloc(size * size * 3);
	const set = (x, y, c) => {
		const i = (y * size + x) * 3;
		px[i] = c[0];
		px[i + 1] = c[1];
		px[i + 2] = c[2];
	};
	const rect = (x0, y0, x1, y1, c) => {
		for (let y = Math.round(y0 * size); y < Math.round(y1 * size); y++)
			for (let x = Math.round(x0 * size); x < Math.round(x1 * size); x++) set(x, y, c);
	};
	rect(0, 0, 1, 1, GREEN);
	const s = (v) => safe + v * (1 - 2 * safe);
	// two wings (poles) and a striped bar
	rect(s(0.18), s(0.2), s(0.28), s(0.85), WHITE);
	rect(s(0.72), s(0.2), s(0.82), s(0.85), WHITE);
	for (let i = 0; i < 5; i++)
		rect(s(0.28 + i * 0.088), s(0.42), s(0.28 + (i + 1) * 0.088), s(0.52), i % 2 ? WHITE : AMBER);
	rect(s(0.1), s(0.85), s(0.9), s(0.9), WHITE);
	const raw = Buffer.alloc((size * 3 + 1) * size);
	for (let y = 0; y < size; y++) {
		raw[y * (size * 3 + 1)] = 0;
		px.copy(raw, y * (size * 3 + 1) + 1, y * size * 3, (y + 1) * size * 3);
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(size, 0);
	ihdr.writeUInt32BE(size, 4);
	ihdr[8] = 8;
	ihdr[9] = 2;
	return Buffer.concat([
		Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
		chunk('IHDR', ihdr),
		chunk('IDAT', deflateSync(raw, { level: 9 })),
		chunk('IEND', Buffer.alloc(0))
	]);
}

mkdirSync('static/icons', { recursive: true });
writeFileSync('static/icons/icon-192.png', draw(192, 0.04));
writeFileSync('static/icons/icon-512.png', draw(512, 0.04));
writeFileSync('static/icons/maskable-512.png', draw(512, 0.14));
writeFileSync('static/icons/apple-touch-icon.png', draw(180, 0.06));
writeFileSync('static/favicon.png', draw(64, 0.02));
console.log('icons written to static/icons');
