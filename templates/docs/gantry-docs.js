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
  // Swagger UI renders only the operations near the viewport once a document has 150 tags
  // and operations: at the top of a large project's page 3 are in it, and the browser's
  // find, screen readers and printing see no others. This is Swagger UI's own list without
  // that virtualisation: every tag with every operation, in the document's order.
  function allOperations(system) {
    var h = system.React.createElement;
    return {
      components: {
        operations: function (props) {
          var specSelectors = props.specSelectors;
          var tagged = specSelectors.taggedOperations();
          var methods = specSelectors.validOperationMethods();
          if (tagged.size === 0) return h('h3', null, ' No operations defined in spec!');
          var OperationContainer = props.getComponent('OperationContainer', true);
          var OperationTag = props.getComponent('OperationTag');
          return h('div', null, tagged.map(function (tagObj, tag) {
            var operations = tagObj.get('operations').map(function (op) {
              var opPath = op.get('path');
              var method = op.get('method');
              if (methods.indexOf(method) === -1) return null;
              return h(OperationContainer, { key: opPath + '-' + method, specPath: op.get('specPath'), op: op, path: opPath, method: method, tag: tag });
            }).toArray();
            return h(OperationTag, {
              key: 'operation-' + tag, tagObj: tagObj, tag: tag, oas3Selectors: props.oas3Selectors, layoutSelectors: props.layoutSelectors,
              layoutActions: props.layoutActions, getConfigs: props.getConfigs, getComponent: props.getComponent, specUrl: specSelectors.url(),
            }, h('div', { className: 'operation-tag-content' }, operations));
          }).valueSeq().toArray());
        },
      },
    };
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
    plugins: [allOperations],
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
    options.plugins.push(SwaggerUIBundle.plugins.DownloadUrl);
    options.layout = 'StandaloneLayout';
  }
  var ui = SwaggerUIBundle(options);
  window.ui = ui;
})();
