import { inflateSync } from 'node:zlib';

/**
 * The text of each page of a PDF as Chromium (Skia) writes it: Type0 fonts with ToUnicode maps,
 * text shown with hex strings in Tj and TJ. Enough to find a heading, not a general PDF reader.
 */
export function pdfPages(pdf: Buffer): string[] {
	const source = pdf.toString('latin1');
	// Each object's dictionary, and its stream's bytes cut by the dictionary's /Length: compressed
	// bytes may hold "endstream" or "endobj" themselves, so no search for those may cut a stream.
	const objects = new Map<number, string>();
	const streams = new Map<number, Buffer>();
	const header = /(\d+) 0 obj\b/g;
	for (let m = header.exec(source); m; m = header.exec(source)) {
		const start = m.index + m[0].length;
		const endobj = source.indexOf('endobj', start);
		if (endobj === -1) break;
		const streamAt = source.indexOf('stream', start);
		if (streamAt === -1 || streamAt > endobj) {
			objects.set(+m[1]!, source.slice(start, endobj));
			header.lastIndex = endobj + 6;
			continue;
		}
		const dict = source.slice(start, streamAt);
		let from = streamAt + 'stream'.length;
		if (source[from] === '\r') from++;
		if (source[from] === '\n') from++;
		const length = /\/Length (\d+)(?! \d+ R)/.exec(dict);
		const to = length ? from + +length[1]! : source.indexOf('endstream', from);
		objects.set(+m[1]!, dict);
		streams.set(+m[1]!, Buffer.from(source.slice(from, to), 'latin1'));
		header.lastIndex = source.indexOf('endobj', to) + 6;
	}
	const stream = (n: number): string => {
		const raw = streams.get(n);
		if (!raw) return '';
		return ((objects.get(n) ?? '').includes('FlateDecode') ? inflateSync(raw) : raw).toString(
			'latin1'
		);
	};
	const toUnicode = (n: number): Map<string, string> => {
		const map = new Map<string, string>();
		const text = stream(n);
		const hex = (h: string) =>
			String.fromCodePoint(...(h.match(/.{4}/g) ?? []).map((x) => parseInt(x, 16)));
		for (const block of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
			for (const m of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
				map.set(m[1]!.toUpperCase(), hex(m[2]!));
			}
		}
		for (const block of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
			for (const m of block[1]!.matchAll(
				/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g
			)) {
				const [from, to, start] = [m[1]!, m[2]!, m[3]!].map((x) => parseInt(x, 16));
				for (let c = from!; c <= to!; c++) {
					map.set(
						c.toString(16).toUpperCase().padStart(4, '0'),
						String.fromCodePoint(start! + c - from!)
					);
				}
			}
		}
		return map;
	};
	const kids = (n: number): number[] => {
		const body = objects.get(n) ?? '';
		if (/\/Type\s*\/Page\b/.test(body)) return [n];
		const list = /\/Kids\s*\[([^\]]*)\]/.exec(body)?.[1] ?? '';
		return [...list.matchAll(/(\d+) 0 R/g)].flatMap((m) => kids(+m[1]!));
	};
	const catalog = [...objects].find(([, b]) => /\/Type\s*\/Catalog/.test(b));
	const root = +(/\/Pages (\d+) 0 R/.exec(catalog?.[1] ?? '')?.[1] ?? 0);
	return kids(root).map((page) => {
		const body = objects.get(page)!;
		const fonts = new Map<string, Map<string, string>>();
		const fontDict = /\/Font\s*<<([^>]*)>>/.exec(body)?.[1] ?? '';
		for (const m of fontDict.matchAll(/\/(\w+) (\d+) 0 R/g)) {
			const font = objects.get(+m[2]!) ?? '';
			const cmap = /\/ToUnicode (\d+) 0 R/.exec(font)?.[1];
			fonts.set(m[1]!, cmap ? toUnicode(+cmap) : new Map());
		}
		const contents = /\/Contents\s*(?:\[([^\]]*)\]|(\d+) 0 R)/.exec(body);
		const ids = contents?.[2]
			? [+contents[2]]
			: [...(contents?.[1] ?? '').matchAll(/(\d+) 0 R/g)].map((m) => +m[1]!);
		let text = '';
		let font = new Map<string, string>();
		for (const id of ids) {
			for (const m of stream(id).matchAll(
				/\/(\w+) [\d.]+ Tf|\[((?:[^\]])*)\]\s*TJ|<([0-9A-Fa-f]*)>\s*Tj|(ET)/g
			)) {
				if (m[1]) font = fonts.get(m[1]) ?? new Map();
				else if (m[4]) text += '\n';
				else {
					for (const h of (m[2] ?? `<${m[3]}>`).matchAll(/<([0-9A-Fa-f]*)>/g)) {
						for (const code of h[1]!.match(/.{4}/g) ?? [])
							text += font.get(code.toUpperCase()) ?? '';
					}
				}
			}
		}
		return text;
	});
}

/** Text without its white space: words a PDF lays out apart still compare. */
export const squeeze = (text: string) => text.replace(/\s+/g, '');
