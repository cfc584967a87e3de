// Starts Swagger UI on #swagger-ui with the OpenAPI document named by the element's
// data-openapi-url. A file of its own, not an inline script, so the page keeps working under a
// Content-Security-Policy of `script-src 'self'`. `validatorUrl: null`: no call to an online
// validator, which an air-gapped install cannot reach.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-openapi-url"),
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
})();
