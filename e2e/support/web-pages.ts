/** The HTML pages the e2e fake web serves, by path; tests assert on their text. */
export const QUOKKA_FACT = "The quokka is a small marsupial that lives on Rottnest Island.";

export const WEB_PAGES: Record<string, string> = {
  "/quokka.html": `<!DOCTYPE html><html><head><title>The quokka</title><style>p{color:red}</style></head>
<body><nav>Home · Animals · About</nav>
<article><h1>The quokka</h1>
<p>${QUOKKA_FACT}</p>
<p>Quokkas are mostly nocturnal and eat grasses, leaves and stems.</p>
<p>They can survive for long periods without water.</p></article>
<footer>© Fake Zoo</footer></body></html>`,
};
