import type { ButtonHTMLAttributes } from "react";

const TONE = {
  primary: "bg-blue-700 text-white hover:bg-blue-800",
  secondary:
    "border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800",
  danger:
    "border border-red-300 bg-white text-red-700 hover:bg-red-50 dark:border-red-800 dark:bg-zinc-900 dark:text-red-300 dark:hover:bg-red-950",
  warning: "bg-amber-700 text-white hover:bg-amber-800",
  /** Letting something go ahead: an ask's Allow. */
  success: "border border-green-600 bg-green-700 text-white hover:bg-green-800",
  /** Letting it go ahead for longer, said more quietly: an ask's Allow for this run. */
  successOutline:
    "border border-green-600 bg-white text-green-800 hover:bg-green-50 dark:bg-zinc-900 dark:text-green-300 dark:hover:bg-green-950",
  /** No border: a close button, a row's small action. */
  ghost: "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
  /** Words that act, inline with text. */
  link: "text-blue-700 hover:underline dark:text-blue-300",
} as const;

const SIZE = {
  xs: "px-2 py-0.5 text-xs",
  sm: "px-2.5 py-1 text-xs",
  md: "px-3 py-1.5 text-sm",
  lg: "px-4 py-2 text-sm",
} as const;

type ButtonTone = keyof typeof TONE;

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  tone?: ButtonTone;
  size?: keyof typeof SIZE;
  /** Its request is in flight: disabled, `aria-busy`, and `busyText` in place of its words when given. */
  busy?: boolean;
  busyText?: string;
}

/**
 * The one button: a tone (primary, secondary, danger, warning, success, ghost, link) and a size, the same
 * focus ring everywhere, and a busy state that a form's request drives (use-action.ts).
 */
export function Button({
  tone = "secondary",
  size = "md",
  busy = false,
  busyText,
  type = "button",
  disabled,
  className,
  children,
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      className={[
        "rounded-md font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:cursor-not-allowed disabled:opacity-60",
        TONE[tone],
        tone === "link" ? "" : SIZE[size],
        className,
      ]
        .filter(Boolean)
        .join(" ")}
    >
      {busy && busyText ? busyText : children}
    </button>
  );
}
