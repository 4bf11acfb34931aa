package dev.providerdirectory.validator;

import ca.uhn.fhir.context.support.IValidationSupport;
import ca.uhn.fhir.rest.api.EncodingEnum;
import ca.uhn.fhir.validation.IValidationContext;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.hl7.fhir.common.hapi.validation.validator.FhirInstanceValidator;
import org.hl7.fhir.common.hapi.validation.validator.WorkerContextValidationSupportAdapter;
import org.hl7.fhir.r5.elementmodel.Manager;
import org.hl7.fhir.r5.model.StructureDefinition;
import org.hl7.fhir.r5.utils.validation.ValidatorSession;
import org.hl7.fhir.r5.utils.validation.constants.IdStatus;
import org.hl7.fhir.r5.utils.xver.XVerExtensionManagerOld;
import org.hl7.fhir.utilities.i18n.I18nConstants;
import org.hl7.fhir.utilities.validation.ValidationMessage;
import org.hl7.fhir.validation.ValidatorSettings;
import org.hl7.fhir.validation.instance.InstanceValidator;

/**
 * HAPI's FhirInstanceValidator, but with one core InstanceValidator per thread, reused for every
 * resource that thread validates. HAPI's own ValidatorWrapper builds a new one per resource, and
 * building one re-reads the OID table, a third of the cost of validating a Plan-Net resource.
 * Configured as HAPI configures its per-call validator with this class's (default) settings, for
 * JSON input only; the messages HAPI drops afterwards are dropped here too.
 */
final class PerThreadInstanceValidator extends FhirInstanceValidator {
  private final ThreadLocal<InstanceValidator> validators =
      ThreadLocal.withInitial(this::newInstanceValidator);

  PerThreadInstanceValidator(IValidationSupport support) {
    super(support);
  }

  private InstanceValidator newInstanceValidator() {
    WorkerContextValidationSupportAdapter context = provideWorkerContext();
    InstanceValidator validator;
    try {
      validator =
          new InstanceValidator(
              context,
              new NullEvaluationContext(),
              new XVerExtensionManagerOld(context),
              new ValidatorSession(),
              new ValidatorSettings());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    validator.setAssumeValidRestReferences(isAssumeValidRestReferences());
    validator.setBestPracticeWarningLevel(getBestPracticeWarningLevel());
    validator.setAnyExtensionsAllowed(isAnyExtensionsAllowed());
    validator.setResourceIdRule(IdStatus.OPTIONAL);
    validator.setNoTerminologyChecks(isNoTerminologyChecks());
    validator.setErrorForUnknownProfiles(isErrorForUnknownProfiles());
    validator.setUnknownCodeSystemsCauseErrors(true);
    validator.getExtensionDomains().addAll(getExtensionDomains());
    validator.setFetcher(getValidatorResourceFetcher());
    validator.setPolicyAdvisor(getValidatorPolicyAdvisor());
    validator.setNoExtensibleWarnings(isNoExtensibleWarnings());
    validator.setNoBindingMsgSuppressed(isNoBindingMsgSuppressed());
    validator.setAllowExamples(isAllowExamples());
    validator.setAllowXsiLocation(true);
    return validator;
  }

  @Override
  protected List<ValidationMessage> validate(IValidationContext<?> validationContext) {
    if (validationContext.getResourceAsStringEncoding() != EncodingEnum.JSON) {
      throw new IllegalArgumentException("JSON resources only");
    }
    String input = validationContext.getResourceAsString();
    List<String> profileUrls = new ArrayList<>(validationContext.getOptions().getProfiles());
    profileUrls.addAll(declaredProfiles(input));
    List<StructureDefinition> profiles = new ArrayList<>();
    List<ValidationMessage> unknownProfiles = new ArrayList<>();
    for (String url : profileUrls) {
      StructureDefinition profile =
          provideWorkerContext().fetchResource(StructureDefinition.class, url);
      if (profile != null) {
        profiles.add(profile);
      } else {
        ValidationMessage message = new ValidationMessage();
        message.setMessageId(I18nConstants.VALIDATION_VAL_PROFILE_UNKNOWN);
        message.setLevel(ValidationMessage.IssueSeverity.ERROR);
        message.setMessage("Invalid profile. Failed to retrieve profile with url=" + url);
        unknownProfiles.add(message);
      }
    }
    List<ValidationMessage> messages = new ArrayList<>();
    validators
        .get()
        .validate(
            null,
            messages,
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
            Manager.FhirFormat.JSON,
            profiles);
    if (profiles.isEmpty()) {
      messages.addAll(unknownProfiles);
    }
    messages.removeIf(PerThreadInstanceValidator::droppedByHapi);
    if (isErrorForUnknownProfiles()) {
      for (ValidationMessage message : messages) {
        if (message.getMessageId() != null
            && UNKNOWN_PROFILE.contains(message.getMessageId())
            && message.getLevel() == ValidationMessage.IssueSeverity.WARNING) {
          message.setLevel(ValidationMessage.IssueSeverity.ERROR);
        }
      }
    }
    return messages;
  }

  private static final Set<String> UNKNOWN_PROFILE =
      Set.of(
          I18nConstants.VALIDATION_VAL_PROFILE_UNKNOWN,
          I18nConstants.VALIDATION_VAL_PROFILE_UNKNOWN_NOT_POLICY);

  private static boolean droppedByHapi(ValidationMessage message) {
    String id = message.getMessageId();
    return id != null
        && (id.equals(I18nConstants.TERMINOLOGY_TX_BINDING_NOSOURCE)
            || id.equals(I18nConstants.TERMINOLOGY_TX_BINDING_NOSOURCE2)
            || (id.equals(I18nConstants.TERMINOLOGY_TX_VALUESET_NOTFOUND)
                && message.getMessage().contains("http://hl7.org/fhir/ValueSet/mimetypes")));
  }

  private static List<String> declaredProfiles(String input) {
    List<String> urls = new ArrayList<>();
    JsonObject meta = JsonParser.parseString(input).getAsJsonObject().getAsJsonObject("meta");
    JsonElement declared = meta == null ? null : meta.get("profile");
    if (declared != null && declared.isJsonArray()) {
      for (JsonElement url : (JsonArray) declared) {
        urls.add(url.getAsString());
      }
    }
    return urls;
  }
}
