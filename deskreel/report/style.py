"""The report's stylesheet, inlined into index.html so that the page needs nothing else."""

CSS = """
:root { --pass: #1a7f37; --fail: #cf222e; --skip: #6e7781; --abort: #bc4c00;
        --line: #d0d7de; --soft: #f6f8fa; --ink: #1f2328; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       color: var(--ink); background: #fff; }
main { max-width: 1500px; margin: 0 auto; padding: 0 20px 40px; }
header.verdict { padding: 14px 20px; color: #fff; background: var(--skip); }
header.verdict.passed { background: var(--pass); }
header.verdict.failed { background: var(--fail); }
header.verdict.aborted, header.verdict.error { background: var(--abort); }
header.verdict.recording { background: #0969da; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 2px 0 0; opacity: .9; }
h2 { margin: 22px 0 8px; font-size: 18px; }
h3 { margin: 0 0 6px; font-size: 15px; }
a { color: #0969da; }
table.summary { border-collapse: collapse; margin-top: 12px; }
table.summary th { text-align: left; color: #57606a; font-weight: 500; padding: 2px 16px 2px 0; }
table.summary td { padding: 2px 24px 2px 0; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px;
         font-weight: 600; color: #fff; background: var(--skip); vertical-align: 1px; }
.badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); }
.badge.aborted { background: var(--abort); } .badge.recorded { background: #0969da; }
.badge.not-run, .badge.disabled { background: #afb8c1; }
section.failure { border: 2px solid var(--fail); border-radius: 8px; padding: 4px 16px 12px;
                  margin-top: 16px; background: #fff8f8; }
section.failure h2 { color: var(--fail); }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
pre.message { font-size: 14px; background: #ffebe9; padding: 8px 10px; border-radius: 6px; }
pre.action { background: var(--soft); padding: 4px 8px; border-radius: 4px; font-size: 12px; }
.compare { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr));
           gap: 12px; margin: 10px 0; }
nav.strip { display: flex; flex-wrap: wrap; gap: 3px; margin: 14px 0; }
nav.strip a { min-width: 28px; padding: 1px 4px; text-align: center; font-size: 11px;
              color: #fff; text-decoration: none; border-radius: 3px; background: var(--skip); }
nav.strip a.passed { background: var(--pass); } nav.strip a.failed { background: var(--fail); }
nav.strip a.aborted { background: var(--abort); } nav.strip a.recorded { background: #0969da; }
nav.strip a.not-run, nav.strip a.disabled { background: #afb8c1; }
article.step { border: 1px solid var(--line); border-left: 6px solid var(--skip);
               border-radius: 6px; padding: 10px 12px; margin: 10px 0; }
article.step.passed { border-left-color: var(--pass); }
article.step.failed { border-left-color: var(--fail); background: #fffafa; }
article.step.aborted { border-left-color: var(--abort); }
article.step.recorded { border-left-color: #0969da; }
article.step:target { outline: 3px solid #0969da; }
p.message, p.window { margin: 4px 0; }
article.step.failed p.message { color: var(--fail); font-weight: 600; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: baseline;
         font-size: 12px; margin: 3px 0; }
.facts b { color: #57606a; font-weight: 600; min-width: 90px; }
.facts dl { display: contents; } .facts div { display: flex; gap: 4px; }
.facts dt { color: #57606a; } .facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.frames { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 8px; }
figure.shot { margin: 0; width: 240px; }
figure.shot.big { width: auto; }
figure.shot figcaption { font-size: 12px; color: #57606a; }
.frame { position: relative; display: block; border: 1px solid var(--line); line-height: 0; }
.frame img { display: block; width: 100%; height: auto; image-rendering: auto; }
.empty { height: 60px; display: flex; align-items: center; justify-content: center;
         background: var(--soft); color: #8c959f; border: 1px dashed var(--line); }
.box { position: absolute; border: 2px solid #0969da; pointer-events: none; line-height: 1.2; }
.box i { position: absolute; left: -2px; bottom: 100%; font: 600 10px/1.3 system-ui;
         font-style: normal; white-space: nowrap; color: #fff; background: inherit;
         padding: 0 3px; background: #0969da; }
.box.match { border-color: #8250df; } .box.match i { background: #8250df; }
.box.expected { border-color: #d4a72c; } .box.expected i { background: #9a6700; }
.box.found { border-color: var(--fail); } .box.found i { background: var(--fail); }
.box.ok { border-color: var(--pass); border-style: dashed; } .box.ok i { display: none; }
.box.point { width: 9px !important; height: 9px !important; margin: -4px 0 0 -4px;
             border-radius: 50%; border: 2px solid #fff; background: #cf222e; }
table.checks, table.trail { border-collapse: collapse; margin-top: 8px; font-size: 12px; }
table.checks th, table.checks td, table.trail th, table.trail td {
  border: 1px solid var(--line); padding: 2px 8px; text-align: left; }
table.checks th, table.trail th { background: var(--soft); font-weight: 600; }
footer { margin-top: 30px; color: #8c959f; font-size: 12px; }
"""
