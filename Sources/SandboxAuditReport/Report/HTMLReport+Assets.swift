import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

extension HTMLReport {
    /// Sorts a table by the clicked header (again: the other way). Tables sharing a data-group
    /// (a rule's findings, before and inside the fold) sort as one and keep their row counts.
    static let script = """
        (function(){
        function key(td){if(!td)return "";var v=td.getAttribute("data-sort");if(v!==null&&v!==""&&!isNaN(v))return \
        Number(v);return td.textContent.trim().toLowerCase();}
        function sortBy(th){
        var table=th.closest("table"),col=Array.prototype.indexOf.call(th.parentNode.children,th);
        var asc=th.getAttribute("aria-sort")!=="ascending";
        var g=table.getAttribute("data-group");
        var tables=g?Array.prototype.filter.call(document.querySelectorAll("table[data-group]"),function(t){return \
        t.getAttribute("data-group")===g;}):[table];
        var rows=[],counts=[];
        tables.forEach(function(t){var \
        r=Array.prototype.slice.call(t.tBodies[0].rows);counts.push(r.length);rows=rows.concat(r);
        Array.prototype.forEach.call(t.querySelectorAll("th"),function(h){h.removeAttribute("aria-sort");});
        t.querySelectorAll("th")[col].setAttribute("aria-sort",asc?"ascending":"descending");});
        rows.sort(function(a,b){var p=key(a.cells[col]),q=key(b.cells[col]);var c=(typeof p==="number"&&typeof \
        q==="number")?p-q:String(p).localeCompare(String(q));return asc?c:-c;});
        var i=0;tables.forEach(function(t,n){var body=t.tBodies[0];for(var \
        k=0;k<counts[n];k++){body.appendChild(rows[i++]);}});
        }
        Array.prototype.forEach.call(document.querySelectorAll("table.sortable th"),function(th){
        th.tabIndex=0;th.title="Sort";
        th.addEventListener("click",function(){sortBy(th);});
        th.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();sortBy(th);}});
        });
        })();
        """

    static let css = """
        :root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--err:#b91c1c;--warn:#b45309;--note:#1d4ed8;--ok:#15803d}
        *{box-sizing:border-box}body{margin:0;font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe \
        UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:#f9fafb}
        header,main,footer{max-width:960px;margin:0 auto;padding:0 20px}header{padding-top:28px}
        h1{font-size:28px;margin:4px 0}h2{font-size:20px;margin:32px 0 12px;border-bottom:1px solid \
        var(--line);padding-bottom:6px}h3{font-size:16px;margin:18px 0 8px}
        .kicker,.meta,.note{color:var(--muted);margin:2px 0}.version{color:var(--muted);font-weight:400;font-size:20px}
        code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
        .verdict{display:inline-block;padding:6px 12px;border-radius:6px;font-weight:600;margin:12px 0 \
        0}.verdict.fail{background:#fee2e2;color:var(--err)}.verdict.pass{background:#dcfce7;color:var(--ok)}
        .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin-top:24px}
        .card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 16px}.card \
        h3{margin:0;font-size:14px;color:var(--muted);font-weight:600}
        .big{font-size:28px;font-weight:700;margin:4px 0}.delta{display:block;color:var(--fg)}
        .chart{width:100%;max-width:720px;height:auto;display:block;background:#fff;border:1px solid \
        var(--line);border-radius:8px;padding:8px}
        .chart .label{font-size:13px;fill:var(--fg)}.chart .value{font-size:12px;fill:var(--muted)}
        .legend{font-size:13px;color:var(--muted)}.legend \
        span{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px}
        .tw{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:8px;margin:8px 0}
        table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:7px 10px;border-bottom:1px solid \
        var(--line);vertical-align:top}
        th{font-size:13px;color:var(--muted);font-weight:600;cursor:pointer;user-select:none;white-space:nowrap}\
        th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
        a{color:var(--note)}.rulegroup{background:#fff;border:1px solid var(--line);border-left:4px solid \
        var(--note);border-radius:6px;padding:10px 14px;margin:14px 0}
        .rulegroup.error{border-left-color:var(--err)}.rulegroup.warning{border-left-color:var(--warn)}.rulegroup \
        h3{margin:2px 0 6px}.rulegroup p{margin:4px 0}
        .rulegroup .tw{border:none;margin:6px 0 0}.count{color:var(--muted);font-weight:400;font-size:13px}details \
        summary{cursor:pointer;color:var(--muted);font-size:13px}
        .sev{font-size:11px;font-weight:700;text-transform:uppercase}tr.error .sev{color:var(--err)}tr.warning \
        .sev{color:var(--warn)}tr.note .sev{color:var(--note)}
        table.findings{table-layout:fixed}table.findings th:first-child{width:88px}table.findings \
        th:nth-child(2){width:34%}table.findings th:last-child{width:92px}
        td{overflow-wrap:anywhere}.num{text-align:right;white-space:nowrap}td.path{word-break:break-all}\
        .caption{font-size:13px;color:var(--muted);margin:4px 0 0}
        tr.over td{color:var(--err)}.meter{display:inline-block;width:90px;height:8px;background:var(--line);\
        border-radius:4px;vertical-align:middle;overflow:hidden}
        .meter span{display:block;height:100%;background:var(--ok)}tr.over .meter span{background:var(--err)}
        .finding{background:#fff;border:1px solid var(--line);border-left:4px solid \
        var(--note);border-radius:6px;padding:10px 14px;margin:10px 0;break-inside:avoid}
        .finding.error{border-left-color:var(--err)}.finding.warning{border-left-color:var(--warn)}.finding \
        p{margin:4px 0}
        .badge{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;padding:1px \
        6px;border-radius:4px;color:#fff;background:var(--note);vertical-align:middle}
        .error .badge{background:var(--err)}.warning \
        .badge{background:var(--warn)}.rule{color:var(--muted);font-size:13px}.fix{color:var(--fg)}
        .why{color:var(--muted);font-size:13px}ul.paths{padding-left:18px}footer{color:var(--muted);font-size:12px;\
        padding:24px 20px 40px}
        @media (max-width:600px){body{font-size:14px}h1{font-size:22px}.big{font-size:22px}header,main,\
        footer{padding:0 12px}.meter{display:none}th,td{padding:6px}}
        @media print{body{background:#fff;font-size:12px}.card,.rulegroup,.tw,.chart,.treemap{border-color:#ccc}\
        details.more,details.why{display:block}h2{break-after:avoid}.finding,tr{break-inside:avoid}}
        """
}
