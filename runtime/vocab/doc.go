// Package vocab is the step vocabulary that specs, the generator, the engine
// and the runtime share: the page actions ([Action]), the post-condition
// kinds ([CondKind]), the comparison operators of assert, if and tests
// ([Op]), the element states element_state checks ([State]) and the page
// reads whose output a spec binds ([Read]: action_menu,
// annotated_screenshot).
//
// Each name is declared once, here. Package spec accepts exactly these
// names, package gen emits the constants by their Go names ([Action.GoName]
// and friends), package engine performs the actions and checks, and package
// runtime evaluates the operators. The lists ([Actions], [CondKinds], [Ops],
// [States], [Reads]) are in documentation order.
//
// vocab is a leaf: it imports only the standard library.
package vocab
