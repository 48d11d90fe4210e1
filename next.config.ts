import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The custom server (server.ts) serves the API; these packages stay server-only.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "socket.io"],
};

export default nextConfig;
