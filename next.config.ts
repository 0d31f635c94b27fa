import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and worker-loading packages must stay outside the server bundle (SPEC §2).
  serverExternalPackages: ["better-sqlite3", "pdfjs-dist", "@napi-rs/canvas"],
  poweredByHeader: false,
};

export default nextConfig;
