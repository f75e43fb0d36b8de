package report

import "html/template"

// page is report.html. Colours: green passed, red a blocking failure, pale
// red an informing failure, amber a case skipped for a lack (the provider
// cannot run it, a component is missing), grey a case that does not apply
// there (its cell is outside the implementation's scope): an expected
// skip, no warning.
var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 1.5em 1.5em; color: #1f2328; max-width: 1100px; }
h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
a { color: inherit; }
.pass { background: #2da44e; color: #fff; } .fail { background: #cf222e; color: #fff; }
.inform { background: #ffebe9; color: #82071e; } .lack { background: #d4a72c; color: #1f2328; }
.na { background: #eaeef2; color: #57606a; } td.none { color: #8c959f; }
td.fail { font-weight: bold; } td a { display: block; text-decoration: none; }
#verdict { padding: 14px 18px; margin: 0 -18px 12px; border-bottom: 4px solid #d0d7de; background: #f6f8fa; }
#verdict.fail { border-color: #cf222e; background: #fff5f5; color: #1f2328; }
#verdict.pass { border-color: #2da44e; background: #f3fbf5; color: #1f2328; }
#verdict .badge { display: inline-block; font-size: 1.6em; font-weight: 700; padding: 2px 12px; border-radius: 6px; margin-right: 10px; }
#verdict .run { font-size: 1.1em; font-weight: 600; padding: 3px 10px; border-radius: 6px; }
#verdict h2 { margin: .9em 0 .3em; font-size: 1em; }
.verdict { padding: 4px 10px; margin: 3px 0; border-radius: 4px; }
.verdict ul { margin: 2px 0; }
.brief { border-left: 5px solid #cf222e; padding: 2px 10px; margin: 6px 0; background: #fff; }
.brief.inform { border-color: #ff8182; background: #fff; color: #1f2328; }
.brief pre { margin: 2px 0; padding: 4px 8px; }
.standing { font-style: italic; color: #82071e; }
table.facts th { background: #f6f8fa; width: 7em; } table.facts td { font-family: ui-monospace, monospace; font-size: 12.5px; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border-radius: 3px; font-size: 12px; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; font-size: 12px; }
summary { cursor: pointer; }
svg text { font: 11px system-ui, sans-serif; fill: #1f2328; } svg .tick { stroke: #d0d7de; }
svg .pass { fill: #2da44e; } svg .fail { fill: #cf222e; } svg .inform { fill: #ff8182; } svg .lack { fill: #d4a72c; } svg .na { fill: #afb8c1; }
svg .start { fill: #54aeff; } svg .node { fill: #0969da; } svg .stop { fill: #8c959f; } svg .restart { fill: #1f2328; }
:target { outline: 3px solid #0969da; }
</style></head><body>
<section id="verdict" class="{{.Headline.VerdictClass}}">
<div><span class="badge {{.Headline.VerdictClass}}">{{.Headline.Verdict}}</span><span class="run {{.Headline.RunClass}}">run {{.Headline.Run}}</span></div>
<p>{{.Headline.Summary}} {{.Passed}} passed, {{.Failed}} failed, {{.Skipped}} skipped.</p>
{{range .Verdicts}}<div class="verdict {{.Class}}" id="{{.ID}}"><b>{{.State}}</b> {{.Claims}} on {{.Target}}: {{.Title}}{{.Reason}}{{if .Blocking}}<ul>{{range .Blocking}}<li>{{.}}</li>{{end}}</ul>{{end}}</div>
{{else}}<p>No claims were judged.</p>{{end}}
{{if .Blocking}}<h2>Blocking failures ({{.BlockingCount}})</h2>
{{range .Blocking}}<div class="brief"><a href="#{{.Anchor}}"><b>{{.Name}}</b></a><pre>{{range .Lines}}{{.}}
{{end}}rerun: {{.Rerun}}</pre></div>
{{end}}{{with .MoreBlocking}}<p><a href="#failures">… and {{.}} more blocking failures below</a></p>{{end}}{{end}}
{{if .Informing}}<h2>Informing failures ({{.InformingCount}}): reported, never blocking</h2>
{{range .Informing}}<div class="brief inform"><a href="#{{.Anchor}}"><b>{{.Name}}</b></a> <span class="standing">{{.Standing}}</span><pre>{{range .Lines}}{{.}}
{{end}}rerun: {{.Rerun}}</pre></div>
{{end}}{{with .MoreInforming}}<p><a href="#failures">… and {{.}} more informing failures below</a></p>{{end}}{{end}}
</section>
<table class="facts">{{range .Facts}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>{{end}}</table>
<h2>Matrix</h2>
<p class="legend"><span class="pass">passed</span><span class="fail">failed, blocking</span><span class="inform">failed, informing</span><span class="lack">skipped for a lack</span><span class="na">does not apply</span> passed/ran, F failed, s skipped; a failing cell links to its first failure</p>
{{range .Tables}}<h3>{{.Target}}</h3>
<table><tr><th>suite</th>{{range .Cells}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Suite}}</th>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{if .Link}}<a href="#{{.Link}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
{{with .Timeline}}<h2>Timeline</h2>
<p class="legend"><span class="start" style="background:#54aeff">cluster start</span><span style="background:#0969da;color:#fff">kubelet node</span><span style="background:#8c959f;color:#fff">cluster stop</span><span style="background:#1f2328;color:#fff">component restart</span> cases in the matrix's colours{{if .FromOutcomes}}; this run wrote no timings.json (one process), so its clusters are not drawn{{end}}</p>
<svg xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" role="img" aria-label="timeline of the run">
{{range .Ticks}}<line class="tick" x1="{{.X}}" y1="14" x2="{{.X}}" y2="{{$.Timeline.Height}}"/><text x="{{.X}}" y="11" text-anchor="middle">{{.Label}}</text>
{{end}}{{range .Lanes}}<text x="4" y="{{.Y}}">{{.Label}}</text>
{{end}}{{range .Rects}}<rect class="{{.Class}}" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}"><title>{{.Title}}</title></rect>
{{end}}</svg>
{{end}}
{{if .Failures}}<h2 id="failures">Failures ({{len .Failures}})</h2>
{{range .Failures}}<details open id="{{.Anchor}}"><summary><b>{{.Name}}</b>{{if .Standing}} <span class="standing">({{.Standing}})</span>{{end}}</summary><pre>{{.Message}}</pre>
<p>rerun: <code>{{.Rerun}}</code></p>
{{if .DiagnosticsText}}<details><summary>diagnostics (<a href="{{.Diagnostics}}">{{.Diagnostics}}</a>)</summary><pre>{{.DiagnosticsText}}</pre></details>{{end}}</details>
{{end}}{{end}}
{{if .Lacks}}<h2 class="lack" style="padding:2px 8px">Skipped for a lack: the provider or cluster cannot run these</h2>
{{range .Lacks}}<details><summary>{{.Reason}} ({{len .Names}})</summary><ul>{{range .Names}}<li>{{.}}</li>{{end}}</ul></details>
{{end}}{{end}}
{{if .NotApply}}<h2 class="na" style="padding:2px 8px">Does not apply: outside the implementation's scope, expected</h2>
{{range .NotApply}}<details><summary>{{.Reason}} ({{len .Names}})</summary><ul>{{range .Names}}<li>{{.}}</li>{{end}}</ul></details>
{{end}}{{end}}
{{if .Header}}<h2>What each cell ran on</h2>
<pre>{{.Header}}</pre>{{end}}
</body></html>
`))
