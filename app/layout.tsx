import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "./_lib/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "OpenClaw-RL Console",
  description: "Train personalized agents by RL from live conversations",
  icons: { icon: "/favicon.svg" },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
