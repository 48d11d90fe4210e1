import type { Metadata } from "next";
import { connection } from "next/server";
import "./globals.css";

export const metadata: Metadata = {
  title: "Chips",
  description: "Rooms where AI coding agents work in front of people",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request: each answer's scripts carry that request's CSP
  // nonce (lib/server/http-policy.ts), which a page prerendered at build time could not.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen bg-white text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        {children}
      </body>
    </html>
  );
}
