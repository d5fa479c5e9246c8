/**
 * Reading HAL links: pick a relation (one link or an array), expand RFC 6570 templates, resolve
 * relative hrefs. The client never builds a URI other than the entry point; everything else comes
 * from here.
 */
import { parseTemplate } from 'url-template';
import { ApiError } from './errors';
import type { Link, LinkOrLinks } from './schemas';

/** Anything holding relations; `_links` of any resource. */
export type LinkMap = Readonly<Record<string, LinkOrLinks | undefined>>;

export interface LinkSelector {
	/** Pick the link whose `name` matches, when the relation holds several. */
	name?: string;
}

export type TemplateParams = Record<string, string | number | undefined>;

/**
 * The link of relation `rel`: the only one, the first of an array, or the one with a matching
 * `name` (undefined when none matches).
 */
export function findLink(
	links: LinkMap | undefined,
	rel: string,
	opts: LinkSelector = {}
): Link | undefined {
	const value = links?.[rel];
	if (value === undefined) return undefined;
	const candidates = Array.isArray(value) ? value : [value];
	if (opts.name === undefined) return candidates[0];
	return candidates.find((link) => link.name === opts.name);
}

/**
 * The href of relation `rel` as the document gives it (still templated if the link is templated).
 */
export function linkHref(
	links: LinkMap | undefined,
	rel: string,
	opts: LinkSelector = {}
): string | undefined {
	return findLink(links, rel, opts)?.href;
}

/** Like findLink, but a missing relation is an ApiError 'missing-link' (detail: the relation). */
export function requireLink(
	links: LinkMap | undefined,
	rel: string,
	opts: LinkSelector = {}
): Link {
	const link = findLink(links, rel, opts);
	if (link === undefined) {
		const detail = opts.name === undefined ? rel : `${rel} (name ${opts.name})`;
		throw new ApiError('missing-link', { detail });
	}
	return link;
}

/**
 * The URL of a link: a templated link (`templated: true`) is expanded with `params` (RFC 6570,
 * undefined values left out, so optional parts such as `{&ringId}` disappear); any other href is
 * returned as is. With `base`, a relative result is resolved against it.
 */
export function expandLink(link: Link, params: TemplateParams = {}, base?: string | URL): string {
	let href = link.href;
	if (link.templated === true) {
		const defined: Record<string, string | number> = {};
		for (const [key, value] of Object.entries(params)) {
			if (value !== undefined) defined[key] = value;
		}
		href = parseTemplate(href).expand(defined);
	}
	return base === undefined ? href : new URL(href, base).href;
}

const ABSOLUTE = /^[a-z][a-z\d+.-]*:/i;

/**
 * An href made absolute against the document URL. Absolute hrefs are returned unchanged. For a
 * template, only the part before the first expression is resolved, so `runs?judgeId=5{&ringId}`
 * stays a template.
 */
export function resolveHref(href: string, base: string | URL): string {
	if (ABSOLUTE.test(href)) return href;
	const brace = href.indexOf('{');
	// A template that starts with an expression ({+base}/x) cannot be resolved before expansion.
	if (brace === 0) return href;
	const prefix = brace === -1 ? href : href.slice(0, brace);
	const rest = brace === -1 ? '' : href.slice(brace);
	try {
		return new URL(prefix, base).href + rest;
	} catch {
		return href;
	}
}

/**
 * Rewrites, in place, every `_links` href in a parsed JSON document (embedded resources included)
 * to an absolute URL against the document URL. Snapshots stored offline then no longer depend on
 * where they were read from. Malformed parts are left for the schema to report.
 */
export function resolveLinks(doc: unknown, base: string | URL): void {
	if (Array.isArray(doc)) {
		for (const item of doc) resolveLinks(item, base);
		return;
	}
	if (typeof doc !== 'object' || doc === null) return;
	for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
		if (key === '_links' && typeof value === 'object' && value !== null) {
			for (const relation of Object.values(value as Record<string, unknown>)) {
				const candidates: unknown[] = Array.isArray(relation) ? relation : [relation];
				for (const link of candidates) {
					if (typeof link !== 'object' || link === null) continue;
					const target = link as { href?: unknown };
					if (typeof target.href === 'string') target.href = resolveHref(target.href, base);
				}
			}
		} else {
			resolveLinks(value, base);
		}
	}
}
