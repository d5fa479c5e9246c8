/**
 * Service values under labels from the catalogue, without saying a thing twice: the service's
 * values often carry their own label (a Czech performance book number is "VK 11389/20", which the
 * Czech label "VK {{no}}" would turn into "VK VK 11389/20"), and run names often hold the level and
 * size that a run's summary line would repeat.
 */

const MARK = '\u0000';

/** Whether `text` holds `word` as a whole word (letters or digits around it do not count). */
function hasWord(text: string, word: string): boolean {
	const w = word.trim().toLocaleLowerCase();
	if (w === '') return false;
	const t = text.toLocaleLowerCase();
	for (let at = t.indexOf(w); at >= 0; at = t.indexOf(w, at + 1)) {
		const before = t.slice(0, at);
		const after = t.slice(at + w.length);
		if (!/[\p{L}\p{N}]$/u.test(before) && !/^[\p{L}\p{N}]/u.test(after)) return true;
	}
	return false;
}

/**
 * `value` under a label: `labelled(value)` (a catalogue message such as t('run.workbook', { no }))
 * unless the value already starts (or ends) with the label's own words, then the value alone.
 */
export function labelOnce(labelled: (value: string) => string, value: string): string {
	const [before = '', after = ''] = labelled(MARK).split(MARK);
	const v = value.trim();
	const lower = v.toLocaleLowerCase();
	// The label's words, without its punctuation ("Book:", "(VK)").
	const words = (part: string) =>
		part
			.replace(/[^\p{L}\p{N}]+/gu, ' ')
			.trim()
			.toLocaleLowerCase();
	const prefix = words(before);
	const suffix = words(after);
	const hasPrefix =
		prefix !== '' && lower.startsWith(prefix) && hasWord(v.slice(0, prefix.length + 1), prefix);
	const hasSuffix =
		suffix !== '' && lower.endsWith(suffix) && hasWord(v.slice(-suffix.length - 1), suffix);
	if (hasPrefix || hasSuffix) return v;
	return labelled(v);
}

/** The parts (level, size, ...) a run's name does not already say, in their order. */
export function notInName(name: string, parts: readonly string[]): string[] {
	return parts.filter((part) => part.trim() !== '' && !hasWord(name, part));
}
