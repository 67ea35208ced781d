// Drives the page that ci/web.sh serves in headless Chromium (playwright-core, Debian's
// /usr/bin/chromium) and fails on a panic, an uncaught error or a failed verdict.
//
//   node web/run.cjs URL scene [SECONDS]              waits for the scene's "done" line
//   node web/run.cjs URL screenshot FILE [SECONDS]    lets an example run, then takes a screenshot
//
// NODE_MODULES names the folder playwright-core was installed in.
const path = require("path");
const { chromium } = require(path.join(process.env.NODE_MODULES, "playwright-core"));

const [url, mode, ...rest] = process.argv.slice(2);
const seconds = Number((mode === "screenshot" ? rest[1] : rest[0]) || 120);

(async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox", "--no-first-run", "--disable-quic", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
      // WebGL2 without a GPU: ANGLE on SwiftShader, Chromium's software renderer.
      "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
    ],
  });
  const problems = [];
  // Settles as soon as the page panics or throws: no waiting out the timeout.
  let failNow;
  const failed = new Promise((resolve) => { failNow = resolve; });
  const problem = (text) => { problems.push(text); failNow(); };
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on("console", (message) => {
    const text = message.text();
    console.log(`[page ${message.type()}] ${text}`);
    if (text.includes("panicked at")) problem(`a panic: ${text.split("\n").slice(0, 2).join(" ")}`);
  });
  page.on("pageerror", (error) => {
    if (String(error).includes("Using exceptions for control flow")) return;
    console.log(`[page error] ${error}`);
    problem(`an uncaught error: ${error}`);
  });
  const started = Date.now();
  await page.goto(url);
  let verdict = null;
  if (mode === "scene") {
    try {
      const done = page.waitForFunction(
        () => window.navLines && window.navLines.some((l) => l.startsWith("done")),
        null, { timeout: seconds * 1000, polling: 200 });
      await Promise.race([done, failed]);
    } catch (error) {
      problem(`no verdict within ${seconds} s`);
    }
    const lines = await page.evaluate(() => window.navLines || []);
    for (const line of lines) console.log(`[scene] ${line}`);
    verdict = lines.find((l) => l.startsWith("done"));
    if (verdict && !verdict.startsWith("done ok")) problems.push(verdict);
  } else {
    await Promise.race([page.waitForTimeout(seconds * 1000), failed]);
    await page.screenshot({ path: rest[0] });
    console.log(`screenshot: ${rest[0]}`);
  }
  console.log(`browser run: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await browser.close();
  if (problems.length > 0) {
    console.log(`FAILED in the browser:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
})().catch((error) => {
  console.log(`FAILED: ${error}`);
  process.exit(1);
});
