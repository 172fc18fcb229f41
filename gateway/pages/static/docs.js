"use strict";
// The API reference: Swagger UI (served from this installation) rendering /openapi.json, the
// operations grouped by API family (the document's tags, each saying how it authenticates).
document.addEventListener("DOMContentLoaded", function () {
  const SwaggerUIBundle = window.SwaggerUIBundle;

  /**
   * Swagger UI's own layout without its <main> (the page has one) and without the document's
   * title block (the page's heading and introduction say it): the authorization button, the
   * filter and the operations.
   */
  function layoutPlugin(system) {
    const h = system.React.createElement;
    function ReferenceLayout(props) {
      const get = props.getComponent;
      const parts = [h(get("errors", true))];
      const authorize = get("AuthorizeBtnContainer", true);
      parts.push(h("div", { className: "scheme-container" }, h("div", { className: "schemes wrapper" }, h(authorize))));
      parts.push(h(get("FilterContainer", true)));
      parts.push(h("div", { className: "wrapper" }, h(get("operations", true))));
      return h.apply(null, ["div", { className: "swagger-ui" }].concat(parts));
    }
    return { components: { ReferenceLayout: ReferenceLayout } };
  }

  SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#reference",
    // No online validator: no request leaves this installation.
    validatorUrl: null,
    docExpansion: "list",
    defaultModelsExpandDepth: -1,
    displayOperationId: true,
    deepLinking: false,
    filter: true,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [layoutPlugin],
    layout: "ReferenceLayout",
  });
});
