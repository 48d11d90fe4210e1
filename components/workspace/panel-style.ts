/** The workspace page's panels look alike: a small capitalised heading a panel starts with, and muted detail text. */
export const heading = "mt-8 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400";
export const muted = "text-xs text-zinc-600 dark:text-zinc-400";
