// The console's Markdown renderer (react-markdown + remark-gfm) on recorded model output: GFM renders,
// and nothing in a reply can inject markup: no raw HTML elements, no javascript:/data: links, no image loads.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown, safeUrl } from "../../../app/(console)/_components/Markdown";

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe("Markdown", () => {
  it("renders GFM tables, nested lists, task lists, code and emphasis", () => {
    const out = html(
      "| a | b |\n|---|:-:|\n| 1 | **2** |\n\n- top\n  - nested\n    - deeper\n- [x] done\n- [ ] todo\n\n```py\nprint(1)\n```\n\n~~old~~ `x`",
    );
    expect(out).toContain("<table");
    expect(out).toContain("<th");
    expect(out).toContain("<strong>2</strong>");
    expect(out).toMatch(/<ul[^>]*>\s*<li>top\s*<ul>\s*<li>nested\s*<ul>\s*<li>deeper/);
    expect(out).toContain('type="checkbox"');
    expect(out).toContain('<code class="language-py">print(1)');
    expect(out).toContain("<del>old</del>");
    expect(out).toContain("<code>x</code>");
    expect(out.startsWith('<div class="md">')).toBe(true);
  });

  it("never emits raw HTML from the text: tags show as literal text", () => {
    const out = html(
      'Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <b>bold</b>\n\n<div onclick="x()">block</div>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(out).not.toMatch(/<script|<img|<b>|<div onclick|<iframe/i);
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(out).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(out).toContain("&lt;iframe");
  });

  it("keeps http(s) and relative links, drops javascript:, data: and other schemes", () => {
    const out = html(
      [
        "[ok](https://example.com/a?b=1)",
        "[plain](http://example.com)",
        "[rel](/trajectories/abc)",
        "[dot](./x#y)",
        "[js](javascript:alert(1))",
        "[jsmixed](JaVaScRiPt:alert(1))",
        "[entity](&#106;avascript:alert(1))",
        "[data](data:text/html;base64,PHNjcmlwdD4=)",
        "[vb](vbscript:msgbox)",
        "<javascript:alert(1)>",
        "[ref][r]",
        "",
        "[r]: javascript:alert(3)",
      ].join(" "),
    );
    expect(out).toContain('href="https://example.com/a?b=1"');
    expect(out).toContain('href="http://example.com"');
    expect(out).toContain('href="/trajectories/abc"');
    expect(out).toContain('href="./x#y"');
    expect(out).not.toMatch(/href="[^"]*(javascript|vbscript|data:)/i);
    expect(out).not.toMatch(/href="\s*(javascript|data|vbscript):/i);
    expect(out).toContain('rel="noreferrer noopener"');
    // Link text survives even where the link does not.
    expect(out).toContain("js");
    expect(out).toContain("entity");
  });

  it("does not load images: they become links labelled with their alt text", () => {
    const out = html("![chart](https://example.com/t.png) ![x](javascript:alert(1))");
    expect(out).not.toContain("<img");
    expect(out).toContain('href="https://example.com/t.png"');
    expect(out).toContain("[chart]");
    expect(out).not.toMatch(/href="javascript/i);
  });

  it("safeUrl: scheme check ignores whitespace and control characters inside the scheme", () => {
    expect(safeUrl("https://a.b")).toBe("https://a.b");
    expect(safeUrl("HTTP://a.b")).toBe("HTTP://a.b");
    expect(safeUrl("/x:y")).toBe("/x:y");
    expect(safeUrl("?q=a:b")).toBe("?q=a:b");
    expect(safeUrl("page")).toBe("page");
    expect(safeUrl("java\tscript:alert(1)")).toBeNull();
    expect(safeUrl(" javascript:alert(1)")).toBeNull();
    expect(safeUrl("\u0001javascript:alert(1)")).toBeNull();
    expect(safeUrl("mailto:a@b.c")).toBeNull();
    expect(safeUrl("data:text/html,x")).toBeNull();
  });
});
