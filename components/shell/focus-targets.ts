/**
 * The places the skip link and the keyboard shortcuts move focus to, found by id: one composer, one
 * search box and one main landmark per page.
 */
export const MAIN_ID = "main";
export const COMPOSER_ID = "composer-input";
export const SEARCH_ID = "conversation-search";
/** The sidebar's Archived filter: focus goes there when an archived or unarchived conversation leaves the list. */
export const ARCHIVED_FILTER_ID = "archived-filter";
/** The desktop sidebar's hide button, and the header's button that shows it again: each hands focus to the other. */
export const HIDE_SIDEBAR_ID = "sidebar-hide";
export const SHOW_SIDEBAR_ID = "sidebar-show";

/** Focuses the page's composer, or the main landmark on a page without one. */
export function focusComposerOrMain(): void {
  (document.getElementById(COMPOSER_ID) ?? document.getElementById(MAIN_ID))?.focus();
}
