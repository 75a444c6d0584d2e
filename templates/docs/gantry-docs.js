// Starts Swagger UI on the project's document, with the page's key on every request.
(function () {
  var config = JSON.parse(document.getElementById('gantry-docs-config').textContent);
  // Several exposed schemas: one document each, chosen in Swagger UI's top bar.
  var specs = config.specs || null;
  // Read, create, change, delete: the order people look for (the document's keys are sorted).
  var methodRank = { get: 0, post: 1, patch: 2, put: 3, delete: 4 };
  function rank(operation) {
    var value = methodRank[operation.get('method')];
    return value === undefined ? 9 : value;
  }
  var options = {
    url: config.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The default validator badge would call validator.swagger.io: everything stays on this host.
    validatorUrl: null,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    docExpansion: 'list',
    operationsSorter: function (a, b) {
      var pathA = a.get('path');
      var pathB = b.get('path');
      if (pathA !== pathB) return pathA < pathB ? -1 : 1;
      return rank(a) - rank(b);
    },
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
  };
  if (specs) {
    delete options.url;
    options.urls = specs;
    options['urls.primaryName'] = specs[0].name;
    options.presets.push(SwaggerUIStandalonePreset);
    options.plugins = [SwaggerUIBundle.plugins.DownloadUrl];
    options.layout = 'StandaloneLayout';
  }
  var ui = SwaggerUIBundle(options);
  window.ui = ui;
})();
