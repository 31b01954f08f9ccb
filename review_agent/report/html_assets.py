"""The review page's inline stylesheet and script (no external resource of any kind)."""

from __future__ import annotations

STYLE = """
:root{--bg:#fff;--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--panel:#f6f8fa;
--add:#e6ffec;--addno:#ccffd8;--del:#ffebe9;--delno:#ffd7d5;--hunk:#ddf4ff;
--err:#cf222e;--warn:#9a6700;--info:#0969da;--errbg:#ffebe9;--warnbg:#fff8c5;--infobg:#ddf4ff;
--focus:#8250df}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;
--line:#30363d;--panel:#161b22;--add:#12261e;--addno:#1b4721;--del:#25171c;--delno:#542426;
--hunk:#121d2f;--err:#ff7b72;--warn:#d29922;--info:#58a6ff;--errbg:#3a1d1f;--warnbg:#37301a;
--infobg:#16273d;--focus:#bc8cff}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);
font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
code,pre,.code,.no{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
header.top{padding:16px 24px 8px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 8px}
.chips{display:flex;gap:8px;flex-wrap:wrap;margin-bottom:8px}
.chip{padding:2px 10px;border-radius:999px;border:1px solid var(--line)}
.chip.sev-error{background:var(--errbg);color:var(--err)}
.chip.sev-warning{background:var(--warnbg);color:var(--warn)}
.chip.sev-info{background:var(--infobg);color:var(--info)}
dl.meta{display:flex;flex-wrap:wrap;gap:4px 20px;margin:0;color:var(--muted)}
dl.meta div{display:flex;gap:6px}dl.meta dt{font-weight:600}dl.meta dd{margin:0}
.summary-line{color:var(--muted);font-size:12px;margin:6px 0 0;overflow-wrap:anywhere}
.toolbar{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:8px 16px;
align-items:center;padding:8px 24px;background:var(--panel);border-bottom:1px solid var(--line)}
.toolbar .group{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.toolbar .nav{margin-left:auto}
.chk{display:inline-flex;gap:4px;align-items:center;cursor:pointer}
.chk .n{color:var(--muted)}
button,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);
border-radius:6px;padding:3px 10px;cursor:pointer}
button:hover{border-color:var(--focus)}
#pos{min-width:4.5em;text-align:center;color:var(--muted)}
.layout{display:grid;grid-template-columns:280px minmax(0,1fr);gap:0}
nav.files{border-right:1px solid var(--line);padding:12px 12px 24px;position:sticky;top:45px;
align-self:start;max-height:calc(100vh - 45px);overflow:auto}
nav.files h2{font-size:13px;margin:0 0 8px;color:var(--muted)}
nav.files ul{list-style:none;margin:0;padding:0}
nav.files a{display:flex;gap:6px;align-items:center;padding:3px 6px;border-radius:6px;
color:inherit;text-decoration:none}
nav.files a:hover{background:var(--panel)}
nav.files .path{flex:1;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;direction:rtl;
text-align:left}
.stat{font-size:12px;white-space:nowrap}.plus{color:#1a7f37;margin-right:4px}.minus{color:var(--err)}
.count{font-size:11px;border-radius:999px;padding:0 6px;color:#fff}
.count.sev-error{background:var(--err)}.count.sev-warning{background:var(--warn)}
.count.sev-info{background:var(--info)}
main{padding:12px 24px 48px;min-width:0}
section.file{border:1px solid var(--line);border-radius:8px;margin:0 0 16px;overflow:hidden}
section.file h2{font-size:14px;margin:0;padding:8px 12px;background:var(--panel);
border-bottom:1px solid var(--line);display:flex;gap:8px;align-items:baseline}
section.file h2 .path{flex:1;overflow-wrap:anywhere;font-family:ui-monospace,monospace}
.status{color:var(--muted);font-weight:400}
table.diff{border-collapse:collapse;width:100%;table-layout:fixed}
col.c-no{width:52px}col.c-sign{width:18px}
tr.line td{padding:0 6px;vertical-align:top}
td.no{color:var(--muted);text-align:right;user-select:none}
td.sign{color:var(--muted);user-select:none}
td.code pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
tr.add td{background:var(--add)}tr.add td.no{background:var(--addno)}
tr.del td{background:var(--del)}tr.del td.no{background:var(--delno)}
tr.hunk td{background:var(--hunk);color:var(--muted);padding:2px 12px;
font-family:ui-monospace,monospace;font-size:12px}
.finding .fbox{margin:6px 12px 6px 76px;padding:6px 10px;border-radius:6px;
border:1px solid var(--line);border-left-width:4px;background:var(--bg);font-size:13px}
div.finding .fbox{margin:8px 12px}
.finding.sev-error .fbox{border-left-color:var(--err)}
.finding.sev-warning .fbox{border-left-color:var(--warn)}
.finding.sev-info .fbox{border-left-color:var(--info)}
.finding.current .fbox{outline:2px solid var(--focus);outline-offset:1px}
.finding[hidden]{display:none}
.badge{font-size:11px;font-weight:600;text-transform:uppercase;border-radius:4px;padding:1px 6px}
.badge.sev-error{background:var(--errbg);color:var(--err)}
.badge.sev-warning{background:var(--warnbg);color:var(--warn)}
.badge.sev-info{background:var(--infobg);color:var(--info)}
.rule{color:var(--muted)}.src{color:var(--muted);font-size:12px;margin-left:6px}
.msg{overflow-wrap:anywhere}
.muted{color:var(--muted)}.none{font-size:16px;color:var(--muted)}
section.notes,section.team{border:1px solid var(--line);border-radius:8px;padding:8px 16px;
margin:0 0 16px}
section.notes h2,section.team h2{font-size:14px;margin:4px 0}
section.warn{border-color:var(--warn)}
section.team pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
@media (max-width:800px){.layout{grid-template-columns:1fr}.toolbar{position:static}
nav.files{position:static;max-height:none;border-right:0;border-bottom:1px solid var(--line)}
header.top,.toolbar,main{padding-left:12px;padding-right:12px}
.toolbar .nav{margin-left:0}.finding .fbox{margin-left:12px}col.c-no{width:38px}
main{padding-top:8px}}
"""

SCRIPT = r"""
(function(){
"use strict";
var all=Array.prototype.slice.call(document.querySelectorAll('.finding'));
var cur=-1;
function checked(name){
  var out={};
  document.querySelectorAll('input[name="'+name+'"]').forEach(function(b){out[b.value]=b.checked;});
  return out;
}
function visible(){return all.filter(function(f){return !f.hidden;});}
function apply(){
  var sev=checked('severity'),src=checked('source'),rule=document.getElementById('rule').value;
  all.forEach(function(f){
    var show=sev[f.dataset.severity]!==false&&src[f.dataset.source]!==false&&
      (!rule||f.dataset.rule===rule);
    f.hidden=!show;
  });
  var v=visible();
  if(cur>=0&&all[cur].hidden){all[cur].classList.remove('current');cur=-1;}
  label(v);
}
function label(v){
  var pos=document.getElementById('pos');
  var i=cur>=0?v.indexOf(all[cur]):-1;
  pos.textContent=v.length?((i>=0?(i+1):'–')+' / '+v.length):'0 shown';
}
function go(step){
  var v=visible();if(!v.length){label(v);return;}
  var i=cur>=0?v.indexOf(all[cur]):-1;
  i=i<0?(step>0?0:v.length-1):(i+step+v.length)%v.length;
  if(cur>=0)all[cur].classList.remove('current');
  cur=all.indexOf(v[i]);
  var el=all[cur];el.classList.add('current');
  el.scrollIntoView({block:'center'});
  el.focus({preventScroll:true});
  label(v);
}
function markdown(){
  var v=visible();
  return '# review-agent findings ('+v.length+')\n\n'+
    v.map(function(f){return f.dataset.md;}).join('\n')+'\n';
}
function copied(text){document.getElementById('copied').textContent=text;}
function copy(){
  var text=markdown();window.__copiedMarkdown=text;
  function fallback(){
    var ta=document.createElement('textarea');ta.value=text;
    document.body.appendChild(ta);ta.select();
    try{document.execCommand('copy');copied('copied');}catch(e){copied('copy failed');}
    document.body.removeChild(ta);
  }
  if(navigator.clipboard&&window.isSecureContext){
    navigator.clipboard.writeText(text).then(function(){copied('copied');},fallback);
  }else{fallback();}
}
document.querySelectorAll('.toolbar input').forEach(function(b){
  b.addEventListener('change',apply);});
document.getElementById('rule').addEventListener('change',apply);
document.getElementById('next').addEventListener('click',function(){go(1);});
document.getElementById('prev').addEventListener('click',function(){go(-1);});
document.getElementById('copy').addEventListener('click',copy);
document.addEventListener('keydown',function(e){
  if(e.altKey||e.ctrlKey||e.metaKey)return;
  var t=e.target&&e.target.tagName;if(t==='INPUT'||t==='SELECT'||t==='TEXTAREA')return;
  if(e.key==='j'||e.key==='n'){go(1);e.preventDefault();}
  else if(e.key==='k'||e.key==='p'){go(-1);e.preventDefault();}
});
window.reviewAgent={markdown:markdown,next:function(){go(1);},prev:function(){go(-1);}};
label(visible());
})();
"""
