import type { Locator, Page } from '@playwright/test';

/**
 * What a person sees wrong with the words on a screen: text cut by its box (overflowing it,
 * hidden or ended with "…"), text cut by a box around it that clips (or by the screen's edge),
 * text under something else painted over it, and two texts over each other. Each problem is one
 * line naming the text. Only what shows is looked at (visible, inside the viewport vertically or
 * not: a page that scrolls is another check's business); `within` limits it to part of a page.
 * A mark drawn as a character (the gates' dot "●") is text, and checked as text. `fixed` names
 * bars fixed over the page (a tab bar) that the content scrolls under, as it should: text under
 * one of them is the page's scrolling, not a problem.
 */
export async function textProblems(
	page: Page,
	options: { within?: Locator; fixed?: string } = {}
): Promise<string[]> {
	const root = options.within ? await options.within.elementHandle() : null;
	return page.evaluate(
		([root, fixed]) => {
			const inFixed = (el: Element) => fixed !== null && el.closest(fixed) !== null;
			const problems: string[] = [];
			const scope = (root as Element | null) ?? document.body;
			const vw = document.documentElement.clientWidth;
			const slack = 1;
			const name = (el: Element) => {
				const id = el.getAttribute('data-testid');
				const cls = el.getAttribute('class')?.split(/\s+/)[0];
				return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : cls ? `.${cls}` : ''}`;
			};
			const shown = (el: Element) => {
				const style = getComputedStyle(el);
				if (style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
				return el.getClientRects().length > 0;
			};
			const clippers = (el: Element): Element[] => {
				const out: Element[] = [];
				for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
					const s = getComputedStyle(a);
					if (s.overflowX !== 'visible' || s.overflowY !== 'visible') out.push(a);
				}
				return out;
			};
			/**
			 * The element painted at a point is the thing itself, inside it, or around it (or paints
			 * nothing: a control drawn by its label, transparent over it).
			 */
			const onTop = (el: Element, x: number, y: number) => {
				const hit = document.elementFromPoint(x, y);
				if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return true;
				if (inFixed(hit) && !inFixed(el)) return true;
				return Number(getComputedStyle(hit).opacity) === 0;
			};
			const inside = (r: DOMRect, c: DOMRect) =>
				r.left >= c.left - slack &&
				r.right <= c.right + slack &&
				r.top >= c.top - slack &&
				r.bottom <= c.bottom + slack;

			/** Checks one line box of `el`'s text. */
			const check = (el: Element, r: DOMRect, what: string) => {
				if (r.width < 1 || r.height < 1) return;
				if (r.left < -slack || r.right > vw + slack)
					problems.push(`${what}: past the screen's edge`);
				for (const c of clippers(el)) {
					if (!inside(r, c.getBoundingClientRect())) {
						problems.push(`${what}: cut by ${name(c)}`);
						break;
					}
				}
				// Under something else: sampled inside the box, off its edges (antialiasing).
				const inset = Math.min(3, r.width / 4, r.height / 4);
				const points: [number, number][] = [
					[r.left + r.width / 2, r.top + r.height / 2],
					[r.left + inset, r.top + inset],
					[r.right - inset, r.top + inset],
					[r.left + inset, r.bottom - inset],
					[r.right - inset, r.bottom - inset]
				];
				const vh = window.innerHeight;
				for (const [x, y] of points) {
					if (y < 0 || y > vh || x < 0 || x > vw) continue;
					if (!onTop(el, x, y)) {
						const hit = document.elementFromPoint(x, y)!;
						problems.push(
							`${what}: under ${name(hit)} ("${hit.textContent?.trim().slice(0, 30)}")`
						);
						break;
					}
				}
			};

			const lines: { el: Element; r: DOMRect; text: string }[] = [];
			const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
			for (let node = walker.nextNode(); node; node = walker.nextNode()) {
				const text = node.textContent?.trim() ?? '';
				const el = node.parentElement;
				if (!text || !el || !shown(el)) continue;
				// Words for screen readers only (a 1 px box: the router's announcer, visually-hidden).
				const own = el.getBoundingClientRect();
				if (own.width <= 1 || own.height <= 1) continue;
				if (el.closest('script, style, svg, [aria-hidden="true"], .visually-hidden')) continue;
				// Inside a closed <details> (Chromium still gives its content boxes): not shown.
				if (el.closest('details:not([open]) > :not(summary)')) continue;
				const what = `"${text.slice(0, 40)}" (${name(el)})`;
				// Cut by its own box: more text than the box shows (hidden, or ended with "…").
				const s = getComputedStyle(el);
				if (
					(s.overflowX !== 'visible' || s.textOverflow === 'ellipsis') &&
					el.scrollWidth > el.clientWidth + slack
				) {
					problems.push(`${what}: cut (${el.scrollWidth} px of text in ${el.clientWidth} px)`);
				}
				const range = document.createRange();
				range.selectNodeContents(node);
				for (const r of range.getClientRects()) {
					check(el, r, what);
					lines.push({ el, r, text });
				}
			}
			// A field's own text (its value is no text node): more than the field shows.
			for (const field of scope.querySelectorAll('input, textarea')) {
				const input = field as HTMLInputElement;
				if (!shown(input) || !input.value || ['checkbox', 'radio'].includes(input.type)) continue;
				if (input.scrollWidth > input.clientWidth + slack) {
					problems.push(
						`value "${input.value.slice(0, 40)}" (${name(input)}): cut (${input.scrollWidth} px in ${input.clientWidth} px)`
					);
				}
			}
			// Two texts over each other (not one inside the other's element: a line and its parts).
			for (let i = 0; i < lines.length; i++) {
				for (let j = i + 1; j < lines.length; j++) {
					const a = lines[i]!;
					const b = lines[j]!;
					if (a.el === b.el || inFixed(a.el) !== inFixed(b.el)) continue;
					const x = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
					const y = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
					if (x > 2 && y > 2) {
						problems.push(`"${a.text.slice(0, 30)}" and "${b.text.slice(0, 30)}": over each other`);
					}
				}
			}
			return [...new Set(problems)];
		},
		[root, options.fixed ?? null] as const
	);
}
