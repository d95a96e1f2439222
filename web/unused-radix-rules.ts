import { transform, type Selector } from 'lightningcss';
import type { Plugin } from 'vite';

/**
 * Radix Themes' breakpoints: a responsive prop's class is `<breakpoint>:<class>`, e.g. `md:rt-r-p-4`
 * (`initial` has no prefix).
 */
const BREAKPOINT_PREFIX = /^(xs|sm|md|lg|xl):/;

/** What the scripts of a page can set. */
interface Used {
  /** Every word that may be a Radix class, or the stem a Radix script builds classes from. */
  words: Set<string>;
  /** The breakpoints a responsive prop names, as an object's key (`p={{ initial: '3', md: '5' }}`). */
  breakpoints: Set<string>;
}

function usedBy(scripts: readonly string[]): Used {
  const used: Used = { words: new Set(), breakpoints: new Set() };
  for (const script of scripts) {
    for (const [word] of script.matchAll(/\brt-[\w-]*/g)) used.words.add(word.replace(/-+$/, ''));
    for (const [, breakpoint = ''] of script.matchAll(/[{,]\s*"?(xs|sm|md|lg|xl)"?\s*:/g)) {
      used.breakpoints.add(breakpoint);
    }
  }
  return used;
}

/**
 * Whether a page whose scripts hold `words` can set the Radix class `name`: the scripts hold it whole
 * (`rt-Button`), or a stem it is built from (`rt-r-size` → `rt-r-size-2`, `rt-variant` → `rt-variant-soft`: Radix
 * joins a prop's class and its value at run time). The stems `rt` and `rt-r` are too short to tell anything.
 */
function mayBeSet(name: string, { words, breakpoints }: Used): boolean {
  const breakpoint = BREAKPOINT_PREFIX.exec(name)?.[1];
  if (breakpoint !== undefined && !breakpoints.has(breakpoint)) return false;
  const bare = name.replace(BREAKPOINT_PREFIX, '');
  if (words.has(bare)) return true;
  for (let cut = bare.lastIndexOf('-'); cut > 'rt-r'.length; cut = bare.lastIndexOf('-', cut - 1)) {
    if (words.has(bare.slice(0, cut))) return true;
  }
  return false;
}

/** Whether a selector's component is a class of Radix's responsive props at a breakpoint, e.g. `md:rt-r-p-4`. */
function isResponsiveClass(component: Selector[number]): boolean {
  return component.type === 'class' && BREAKPOINT_PREFIX.test(component.name);
}

/** Radix's attributes that name a colour scale, e.g. `[data-accent-color='tomato']`. */
const COLOR_ATTRIBUTES = new Set(['data-accent-color', 'data-gray-color']);

/**
 * Whether a selector can match on the page: not when one of its own classes (not those inside `:not()`,
 * `:where()`, `:has()` …, which may match by being absent) is a Radix class the page never sets, nor when it
 * names a colour scale the style sheet does not define (web/shared/theme.css picks the scales).
 */
function canMatch(selector: Selector, used: Used, scales: ReadonlySet<string>): boolean {
  return selector.every((component) => {
    if (component.type === 'class') {
      // A responsive class is Radix's too: `md:rt-r-p-4`.
      return (
        !component.name.replace(BREAKPOINT_PREFIX, '').startsWith('rt-') || mayBeSet(component.name, used)
      );
    }
    if (component.type === 'attribute' && COLOR_ATTRIBUTES.has(component.name)) {
      const value = component.operation?.value;
      return value === undefined || value === '' || scales.has(value);
    }
    return true;
  });
}

/** A style sheet without the rules that can match none of the Radix classes the scripts can set. */
export function withoutUnusedRadixRules(css: string, scripts: readonly string[]): string {
  const used = usedBy(scripts);
  // A scale is defined when its ninth step is, e.g. `--indigo-9: #3e63dd`.
  const scales = new Set(Array.from(css.matchAll(/--([a-z]+)-9\s*:/g), ([, scale = '']) => scale));
  const { code } = transform({
    filename: 'page.css',
    code: Buffer.from(css),
    minify: true,
    visitor: {
      Rule: {
        style(rule) {
          const selectors = rule.value.selectors.filter((selector) => canMatch(selector, used, scales));
          if (selectors.length === rule.value.selectors.length) return undefined;
          if (selectors.length === 0) return [];
          // lightningcss cannot take back some of the rules it hands over (those of a responsive class among
          // them): such a rule stays whole, as it did before its responsive selectors were looked at.
          if (rule.value.selectors.some((selector) => selector.some(isResponsiveClass))) return undefined;
          rule.value.selectors = selectors;
          return rule;
        },
      },
    },
  });
  return code.toString();
}

/**
 * Keeps in a surface's style sheets only the Radix Themes rules its scripts can use (web/shared/theme.css
 * brings all of Radix's components and utilities; a page uses a few percent of them). Every script of the
 * surface counts, lazily loaded ones too, since the style sheet comes with the first page. The class names are
 * Radix's own (`rt-…`), written in its scripts as whole names or as the stems of the classes its props build,
 * so the check needs no list of them; our own classes are never removed.
 */
export function unusedRadixRules(): Plugin {
  return {
    name: 'portico:unused-radix-rules',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const scripts = Object.values(bundle).flatMap((output) =>
        output.type === 'chunk' ? [output.code] : [],
      );
      for (const output of Object.values(bundle)) {
        if (
          output.type === 'asset' &&
          output.fileName.endsWith('.css') &&
          typeof output.source === 'string'
        ) {
          output.source = withoutUnusedRadixRules(output.source, scripts);
        }
      }
    },
  };
}
