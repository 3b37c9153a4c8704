// The annotation overlay: numbered badges drawn over element boxes for an
// annotated screenshot, and removed after it.
{
  // mk.annotate(items) draws numbered badges over boxes ({i, x, y, width,
  // height}) in a top-layer popover with pointer-events:none, so it sits
  // above modal dialogs and cannot steal input; mk.unannotate() removes it
  // and reports whether it is gone.
  mk.annotate = (items) => {
    mk.unannotate();
    const host = document.createElement('div');
    host.id = mk.OVERLAY_ID;
    host.setAttribute('aria-hidden', 'true');
    host.style.cssText = 'position:fixed;inset:0;width:100vw;height:100vh;max-width:none;max-height:none;margin:0;padding:0;border:0;background:transparent;overflow:visible;pointer-events:none;z-index:2147483647;display:block';
    const root = host.attachShadow({ mode: 'open' });
    const css = '.b{position:absolute;box-sizing:border-box;border:2px solid #ff00aa;pointer-events:none}' +
      '.n{position:absolute;left:-2px;top:-2px;min-width:14px;padding:0 3px;background:#ff00aa;color:#fff;font:bold 11px/14px monospace;text-align:center;border-radius:0 0 4px 0}';
    // A constructed stylesheet is CSSOM, so a page's CSP (style-src without
    // 'unsafe-inline') cannot block it the way it blocks a <style> element.
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      root.adoptedStyleSheets = [sheet];
    } catch (e) {
      const style = document.createElement('style');
      style.textContent = css;
      root.appendChild(style);
    }
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    for (const it of items || []) {
      const b = document.createElement('div');
      b.className = 'b';
      const x = Math.max(0, Math.min(it.x, vw - 16));
      const y = Math.max(0, Math.min(it.y, vh - 16));
      b.style.cssText = 'left:' + x + 'px;top:' + y + 'px;width:' + Math.max(8, it.width) + 'px;height:' + Math.max(8, it.height) + 'px';
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = String(it.i);
      b.appendChild(n);
      root.appendChild(b);
    }
    (document.body || document.documentElement).appendChild(host);
    try {
      host.popover = 'manual';
      host.showPopover();
    } catch (e) { /* no popover API: z-index still applies */ }
    return items ? items.length : 0;
  };
  mk.unannotate = () => {
    for (const el of document.querySelectorAll('#' + mk.OVERLAY_ID)) {
      try { if (el.matches(':popover-open')) el.hidePopover(); } catch (e) { /* ignore */ }
      el.remove();
    }
    return !document.getElementById(mk.OVERLAY_ID);
  };
}
