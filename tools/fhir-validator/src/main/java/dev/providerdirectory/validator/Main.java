package dev.providerdirectory.validator;

import ca.uhn.fhir.context.FhirContext;
import ca.uhn.fhir.context.support.DefaultProfileValidationSupport;
import ca.uhn.fhir.validation.FhirValidator;
import ca.uhn.fhir.validation.ResultSeverityEnum;
import ca.uhn.fhir.validation.SingleValidationMessage;
import ca.uhn.fhir.validation.ValidationOptions;
import ca.uhn.fhir.validation.ValidationResult;
import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.hl7.fhir.common.hapi.validation.support.CommonCodeSystemsTerminologyService;
import org.hl7.fhir.common.hapi.validation.support.InMemoryTerminologyServerValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.NpmPackageValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.SnapshotGeneratingValidationSupport;
import org.hl7.fhir.common.hapi.validation.support.ValidationSupportChain;
import org.hl7.fhir.common.hapi.validation.validator.FhirInstanceValidator;

/**
 * Validates FHIR R4 resources offline against the IG packages named on the command line.
 *
 * <p>Arguments: IG package files (.tgz) under packages/ on the classpath. Input: NDJSON resources on stdin.
 * Output: one JSON line per resource on stdout: {"resource": "Type/id", "profile": ..., "errors":
 * [...], "warnings": n}. Each resource is validated against the profile in its meta.profile.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    FhirContext context = FhirContext.forR4();
    NpmPackageValidationSupport packages = new NpmPackageValidationSupport(context);
    for (String name : args) {
      packages.loadPackageFromClasspath("classpath:packages/" + name);
    }
    ValidationSupportChain chain =
        new ValidationSupportChain(
            packages,
            new DefaultProfileValidationSupport(context),
            new CommonCodeSystemsTerminologyService(context),
            new InMemoryTerminologyServerValidationSupport(context),
            new SnapshotGeneratingValidationSupport(context));
    FhirInstanceValidator instanceValidator = new FhirInstanceValidator(chain);
    instanceValidator.setNoTerminologyChecks(false);
    FhirValidator validator = context.newValidator().registerValidatorModule(instanceValidator);

    Gson gson = new Gson();
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) {
        continue;
      }
      JsonObject resource = JsonParser.parseString(line).getAsJsonObject();
      String profile = declaredProfile(resource);
      ValidationOptions options = new ValidationOptions();
      if (profile != null) {
        options.addProfile(profile);
      }
      ValidationResult result = validator.validateWithResult(line, options);
      JsonArray errors = new JsonArray();
      int warnings = 0;
      for (SingleValidationMessage message : result.getMessages()) {
        ResultSeverityEnum severity = message.getSeverity();
        if (severity == ResultSeverityEnum.ERROR || severity == ResultSeverityEnum.FATAL) {
          JsonObject error = new JsonObject();
          error.addProperty("location", message.getLocationString());
          error.addProperty("message", message.getMessage());
          error.addProperty("id", message.getMessageId());
          errors.add(error);
        } else if (severity == ResultSeverityEnum.WARNING) {
          warnings++;
        }
      }
      JsonObject summary = new JsonObject();
      summary.addProperty(
          "resource", resource.get("resourceType").getAsString() + "/" + idOf(resource));
      summary.addProperty("profile", profile);
      summary.add("errors", errors);
      summary.addProperty("warnings", warnings);
      out.println(gson.toJson(summary));
    }
  }

  private static String declaredProfile(JsonObject resource) {
    JsonObject meta = resource.getAsJsonObject("meta");
    if (meta == null || !meta.has("profile") || meta.getAsJsonArray("profile").isEmpty()) {
      return null;
    }
    return meta.getAsJsonArray("profile").get(0).getAsString();
  }

  private static String idOf(JsonObject resource) {
    return resource.has("id") ? resource.get("id").getAsString() : "";
  }
}
