// 44_press.js — the in-page half of press (press.go) on the DOM channel.
{
  // mk.actDomKey dispatches synthetic keydown and keyup KeyboardEvents
  // (opts: key, code, keyCode, ctrlKey, shiftKey, altKey, metaKey) to the
  // focused element. Browsers run no default action for them.
  mk.actDomKey = (k) => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    const t = a || document.body;
    const W = (t.ownerDocument && t.ownerDocument.defaultView) || window;
    const init = {key: k.key, code: k.code, keyCode: k.keyCode, which: k.keyCode, ctrlKey: k.ctrlKey, shiftKey: k.shiftKey,
      altKey: k.altKey, metaKey: k.metaKey, bubbles: true, cancelable: true, composed: true};
    t.dispatchEvent(new W.KeyboardEvent('keydown', init));
    if (k.key.length === 1 && !k.ctrlKey && !k.metaKey && !k.altKey) t.dispatchEvent(new W.KeyboardEvent('keypress', Object.assign({}, init, {charCode: k.key.charCodeAt(0)})));
    t.dispatchEvent(new W.KeyboardEvent('keyup', init));
    return true;
  };
}
