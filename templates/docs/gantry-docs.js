// Starts Swagger UI on the project's document, with the page's key on every request.
(function () {
  var config = JSON.parse(document.getElementById('gantry-docs-config').textContent);
  var ui = SwaggerUIBundle({
    url: config.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator badge would call validator.swagger.io: everything stays on this host.
    validatorUrl: null,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    docExpansion: 'list',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    requestInterceptor: function (request) {
      var headers = request.headers || (request.headers = {});
      var named = Object.keys(headers).some(function (name) { return name.toLowerCase() === 'apikey'; });
      if (!named) headers.apikey = config.apiKey;
      return request;
    },
    onComplete: function () {
      ui.preauthorizeApiKey('apikey', config.apiKey);
    },
  });
  window.ui = ui;
})();
