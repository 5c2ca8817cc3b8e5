/**
 * The console's one stylesheet, served as /admin/assets/console.css (a file of its own, so the pages' Content
 * Security Policy allows no inline style). Colours keep WCAG AA contrast on their backgrounds.
 */
export const CONSOLE_CSS = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--accent:#0a58ca;--ok:#116329;--warn:#7d4e00;--bad:#a40e26;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
*{box-sizing:border-box}
body{margin:0;line-height:1.45}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}
.skip:focus{left:1rem}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.5rem 1.25rem;background:#24292f;color:#fff}
header.top .brand{font-weight:700;font-size:1.05rem;margin-right:.25rem}
header.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem;list-style:none;margin:0;padding:0}
header.top nav a{color:#fff;text-decoration:none;padding:.3rem .5rem;border-radius:6px;display:inline-block;font-size:.95rem}
header.top nav a:hover{background:#3b434c}
header.top nav a[aria-current=page]{background:#fff;color:#24292f;font-weight:600}
header.top .who{margin-left:auto;display:flex;align-items:center;gap:.6rem;font-size:.85rem}
header.top .who button{background:transparent;color:#fff;border:1px solid #8c959f;border-radius:6px;padding:.25rem .6rem;cursor:pointer}
main{max-width:78rem;margin:0 auto;padding:1.25rem 1.5rem 3rem}
h1{font-size:1.6rem;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:1.75rem 0 .6rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.75rem;margin:0;padding:0;list-style:none}
.card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem}
.card .n{display:block;font-size:1.7rem;font-weight:650}
.card .l{color:var(--muted);font-size:.9rem}
table{border-collapse:collapse;width:100%;font-size:.92rem}
caption{text-align:left;color:var(--muted);padding:.3rem 0}
th,td{text-align:left;padding:.4rem .55rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.wrap{overflow-x:auto}
.status{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.82rem;font-weight:600;border:1px solid currentColor}
.s-ok,.s-running,.s-completed,.s-active,.s-connected{color:var(--ok)}
.s-waiting_user,.s-paused,.s-pending,.s-in_progress,.s-waiting{color:var(--warn)}
.s-failed,.s-error,.s-cancelled,.s-interrupted,.s-unhealthy,.s-broken{color:var(--bad)}
.muted{color:var(--muted)}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:.85rem;margin:.3rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.2rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
ol.timeline>li{margin:0 0 .9rem;padding:.1rem 0 .1rem 1rem;position:relative}
ol.timeline>li::before{content:"";position:absolute;left:-.48rem;top:.55rem;width:.7rem;height:.7rem;border-radius:50%;background:var(--accent)}
.entry-head{font-weight:600}
.entry-head time{font-weight:400;color:var(--muted);font-size:.85rem;margin-left:.5rem}
form.inline{display:inline}
button,.button{font:inherit;font-size:.9rem;border:1px solid var(--line);background:#f6f8fa;color:var(--fg);border-radius:6px;padding:.3rem .7rem;cursor:pointer;text-decoration:none;display:inline-block}
button.danger{color:#fff;background:#b42318;border-color:#912018}
button.primary{color:#fff;background:#1f6feb;border-color:#1a5fd0}
.actions{display:flex;flex-wrap:wrap;gap:.35rem}
td .actions{min-width:13rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],textarea{font:inherit;width:100%;max-width:40rem;padding:.4rem .5rem;border:1px solid #6e7781;border-radius:6px}
textarea{min-height:7rem}
.hint{color:var(--muted);font-size:.88rem;margin:.2rem 0}
.error{color:var(--bad);font-weight:600}
.notice{background:#ddf4ff;border:1px solid #54aeff;border-radius:8px;padding:.6rem .9rem;margin:0 0 1rem}
.problem{background:#ffebe9;border:1px solid #ff8182;border-radius:8px;padding:.6rem .9rem;margin:0 0 1rem}
figure{margin:0 0 1.5rem}
figcaption{font-weight:600;margin-bottom:.35rem}
svg.chart{max-width:100%;height:auto;background:#fff;border:1px solid var(--line);border-radius:8px}
svg.chart text{font-size:11px;fill:#1b1f24}
svg.chart .axis{stroke:#8c959f}
svg.chart .grid{stroke:#eaeef2}
.legend{display:flex;flex-wrap:wrap;gap:.8rem;list-style:none;padding:0;margin:.35rem 0;font-size:.85rem}
.legend .swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem;vertical-align:-1px}
.pager{margin-top:1rem;display:flex;gap:1rem}
.two{display:grid;grid-template-columns:repeat(auto-fit,minmax(22rem,1fr));gap:1.25rem}
.center{max-width:34rem;margin:4rem auto;padding:0 1rem}
`;
